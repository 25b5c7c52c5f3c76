package thread

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// ForkOptions are the inputs of `thread fork`.
type ForkOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Step string
}

func newCmdFork(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "fork",
		Usage:     "Start a new thread from any step (history is shared, not copied)",
		ArgsUsage: "<step>",
		Flags:     []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			arg, format, err := cmdutil.OneArgAndFormat(c, "step (alias or commit)")
			if err != nil {
				return err
			}
			return forkRun(c.Context, &ForkOptions{IO: f.IO, Repo: f.Repo, Format: format, Step: arg})
		},
	}
}

func forkRun(ctx context.Context, opts *ForkOptions) error {
	repo, e, err := loadStep(ctx, opts.IO.ErrOut, opts.Repo, opts.Step)
	if err != nil {
		return err
	}
	t, err := repo.Fork(ctx, e.Commit)
	if err != nil {
		return err
	}
	out := map[string]any{"thread": t.ID, "forkedFrom": map[string]string{"step": string(e.Node.Alias), "commit": e.Commit.String()}}
	return cmdutil.Print(opts.IO, opts.Format, out, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "forked thread %s from step %s (commit %s)\n", t.ID, e.Node.Alias, e.Commit.String()[:12])
		return err
	})
}
