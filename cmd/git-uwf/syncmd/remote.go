package syncmd

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// NewCmdRemote returns the `git uwf remote` group (setup).
func NewCmdRemote(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:        "remote",
		Usage:       "Configure a git remote to carry git-uwf data",
		Subcommands: []*cli.Command{newCmdSetup(f)},
	}
}

func newCmdSetup(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "setup",
		Usage:     "Make plain git fetch and git push carry threads for a remote",
		ArgsUsage: "<remote>",
		Description: "Adds to the remote's git config (once, however often it runs):\n" +
			"  remote.<r>.fetch +refs/uwf/*:refs/remotes/<r>/uwf/*\n" +
			"  remote.<r>.push  HEAD                  (only if the remote had no push refspec)\n" +
			"  remote.<r>.push  refs/uwf/*:refs/uwf/*\n" +
			"  uwf.remote       <r>                   (if no default remote is set)\n" +
			"A plain git push then pushes the current branch and the threads (never forced);\n" +
			"a plain git fetch mirrors the remote's threads, which git uwf adopts. --remove\n" +
			"takes away exactly what setup added.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "remove", Usage: "undo the setup", DisableDefaultText: true},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.FlagErrorf("remote setup takes one remote, e.g. git uwf remote setup origin")
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			o := Options{Remote: c.Args().First(), Remove: c.Bool("remove"), Format: format}
			repo, err := f.Repo(c.Context)
			if err != nil {
				return err
			}
			var res *uwfsync.SetupResult
			if o.Remove {
				res, err = uwfsync.RemoveRemote(c.Context, repo, o.Remote)
			} else {
				res, err = uwfsync.SetupRemote(c.Context, repo, o.Remote)
			}
			if err != nil {
				return err
			}
			if res.Added == nil {
				res.Added = []string{}
			}
			if res.Removed == nil {
				res.Removed = []string{}
			}
			return cmdutil.Print(f.IO, o.Format, res, func(w io.Writer) error {
				for _, l := range res.Added {
					fmt.Fprintf(w, "added git config %s\n", l)
				}
				for _, l := range res.Removed {
					fmt.Fprintf(w, "removed git config %s\n", l)
				}
				switch {
				case o.Remove && len(res.Removed) == 0:
					fmt.Fprintf(w, "remote %s was not set up\n", o.Remote)
				case !o.Remove && len(res.Added) == 0:
					fmt.Fprintf(w, "remote %s is already set up\n", o.Remote)
				case !o.Remove:
					fmt.Fprintf(w, "plain git push to %s now also pushes refs/uwf/* (never forced); plain git fetch mirrors them\n", o.Remote)
				}
				if res.Default != "" {
					fmt.Fprintf(w, "default remote: %s\n", res.Default)
				}
				return nil
			})
		},
	}
}
