package syncmd

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
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

// SetupOptions are the inputs of `remote setup`.
type SetupOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Remote string
	// Remove undoes the setup.
	Remove bool
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
			return setupRun(c.Context, &SetupOptions{IO: f.IO, Repo: f.Repo, Format: format,
				Remote: c.Args().First(), Remove: c.Bool("remove")})
		},
	}
}

func setupRun(ctx context.Context, opts *SetupOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	var res *uwfsync.SetupResult
	if opts.Remove {
		res, err = uwfsync.RemoveRemote(ctx, repo, opts.Remote)
	} else {
		res, err = uwfsync.SetupRemote(ctx, repo, opts.Remote)
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
	return cmdutil.Print(opts.IO, opts.Format, res, func(w io.Writer) error {
		for _, l := range res.Added {
			fmt.Fprintf(w, "added git config %s\n", l)
		}
		for _, l := range res.Removed {
			fmt.Fprintf(w, "removed git config %s\n", l)
		}
		switch {
		case opts.Remove && len(res.Removed) == 0:
			fmt.Fprintf(w, "remote %s was not set up\n", opts.Remote)
		case !opts.Remove && len(res.Added) == 0:
			fmt.Fprintf(w, "remote %s is already set up\n", opts.Remote)
		case !opts.Remove:
			fmt.Fprintf(w, "plain git push to %s now also pushes refs/uwf/* (never forced); plain git fetch mirrors them\n", opts.Remote)
		}
		if res.Default != "" {
			fmt.Fprintf(w, "default remote: %s\n", res.Default)
		}
		return nil
	})
}
