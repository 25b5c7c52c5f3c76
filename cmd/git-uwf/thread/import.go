package thread

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/syncmd"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// ImportOptions are the inputs of `thread import`.
type ImportOptions struct {
	IO     *iostreams.IOStreams
	Getwd  func() (string, error)
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	// File is the bundle, as given (relative to Getwd).
	File string
}

func newCmdImport(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "Import threads from a bundle written by thread export --bundle",
		ArgsUsage: "<file>",
		Description: "Verifies the bundle (git bundle verify), refuses it if it carries refs outside\n" +
			"refs/uwf/, fetches it and reconciles like git uwf fetch: new threads appear, threads\n" +
			"you have fast-forward, and a thread both sides stepped keeps the bundle's line under\n" +
			"its id while yours is saved as a fork.",
		Flags: []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			arg, format, err := cmdutil.OneArgAndFormat(c, "bundle file")
			if err != nil {
				return err
			}
			return importRun(c.Context, &ImportOptions{IO: f.IO, Getwd: f.Getwd, Repo: f.Repo, Format: format, File: arg})
		},
	}
}

func importRun(ctx context.Context, opts *ImportOptions) error {
	file, err := cmdutil.AbsPath(opts.Getwd, opts.File)
	if err != nil {
		return err
	}
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	rep, err := uwfsync.ImportBundle(ctx, repo, file, opts.File)
	if err != nil {
		return err
	}
	perr := syncmd.PrintReport(opts.IO, opts.Format, rep)
	if perr == nil && rep.Failed() {
		return &cmdutil.ExitError{Code: 1, Err: fmt.Errorf("some refs of %s could not be imported (see above)", opts.File)}
	}
	return perr
}
