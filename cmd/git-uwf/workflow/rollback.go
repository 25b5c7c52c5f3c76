package workflow

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

func newCmdRollback(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "rollback",
		Usage:     "Make an earlier version of a workflow current again (as a new version)",
		ArgsUsage: "<name> [<alias>]",
		Description: "Adds a version commit on refs/uwf/workflows/<name> whose content is the version\n" +
			"<alias> (default: the version before the current one). History is never rewritten:\n" +
			"the rollback is itself a version. New threads run it; running threads keep theirs.",
		Flags: []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 || c.NArg() > 2 {
				return cmdutil.FlagErrorf("want <name> [<alias>], got %d arguments", c.NArg())
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			repo, err := f.Repo(c.Context)
			if err != nil {
				return err
			}
			name := c.Args().Get(0)
			rb, err := repo.RollbackWorkflow(c.Context, name, c.Args().Get(1))
			if errors.Is(err, chain.ErrUnknownWorkflow) {
				return fmt.Errorf("workflow %q is not registered (see 'git uwf workflow list')", name)
			}
			if err != nil {
				return err
			}
			return cmdutil.Print(f.IO, format, rb, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "rolled back %s from %s to %s (new version commit %s on refs/uwf/workflows/%s)\n",
					rb.Name, rb.From, rb.To, rb.Commit[:12], rb.Name)
				return err
			})
		},
	}
}
