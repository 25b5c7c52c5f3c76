package workflow

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

func newCmdRemove(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Aliases:   []string{"rm"},
		Usage:     "Delete a registered workflow (threads pinned to it keep working)",
		ArgsUsage: "<name>",
		Description: "Deletes refs/uwf/workflows/<name> by compare-and-swap. Every thread pins the\n" +
			"version it started with, so existing threads keep reading and stepping. Refused\n" +
			"while a thread of the workflow is being stepped, unless --force.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "remove even while a thread of it is running", DisableDefaultText: true},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			name, format, err := cmdutil.OneArgAndFormat(c, "workflow name")
			if err != nil {
				return err
			}
			repo, err := f.Repo(c.Context)
			if err != nil {
				return err
			}
			rm, err := repo.RemoveWorkflow(c.Context, name, c.Bool("force"))
			if errors.Is(err, chain.ErrUnknownWorkflow) {
				return fmt.Errorf("workflow %q is not registered (see 'git uwf workflow list')", name)
			}
			if err != nil {
				return err
			}
			return cmdutil.Print(f.IO, format, rm, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "removed %s (was %s, version %s)\n", rm.Ref, rm.Commit[:12], rm.Hash)
				return err
			})
		},
	}
}
