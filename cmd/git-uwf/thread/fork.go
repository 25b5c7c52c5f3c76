package thread

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

func newCmdFork(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "fork",
		Usage:     "Start a new thread from any step (history is shared, not copied)",
		ArgsUsage: "<step>",
		Flags:     []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			sc, err := parseStepCommand(c, f)
			if err != nil {
				return err
			}
			repo, e, format := sc.repo, sc.entry, sc.format
			t, err := repo.Fork(c.Context, e.Commit)
			if err != nil {
				return err
			}
			out := map[string]any{"thread": t.ID, "forkedFrom": map[string]string{"step": string(e.Node.Alias), "commit": e.Commit.String()}}
			return cmdutil.Print(f.IO, format, out, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "forked thread %s from step %s (commit %s)\n", t.ID, e.Node.Alias, e.Commit.String()[:12])
				return err
			})
		},
	}
}
