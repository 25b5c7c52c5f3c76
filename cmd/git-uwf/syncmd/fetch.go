package syncmd

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// NewCmdFetch returns `git uwf fetch [remote]`.
func NewCmdFetch(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "fetch",
		Usage:     "Fetch threads and workflows from a remote and reconcile them",
		ArgsUsage: "[remote]",
		Description: "Fetches refs/uwf/* into refs/remotes/<remote>/uwf/*, then brings the local threads\n" +
			"up to date: new threads appear, threads you did not step fast-forward, and a thread\n" +
			"both sides stepped keeps the remote's line under its name while yours is saved as a\n" +
			"fork thread. Nothing is ever dropped. The remote defaults to git config uwf.remote.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-fetch", Usage: "only reconcile what a plain git fetch already brought", DisableDefaultText: true},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			opts, err := parseOptions(c, f, "fetch")
			if err != nil {
				return err
			}
			opts.NoFetch = c.Bool("no-fetch")
			return fetchRun(c.Context, opts)
		},
	}
}

func fetchRun(ctx context.Context, opts *Options) error {
	return exchange(ctx, opts, "fetch", func(ctx context.Context, repo *chain.Repo, o *Options) (*uwfsync.Report, error) {
		if o.NoFetch {
			return uwfsync.Reconcile(ctx, repo, o.Remote)
		}
		return uwfsync.Fetch(ctx, repo, o.Remote)
	})
}
