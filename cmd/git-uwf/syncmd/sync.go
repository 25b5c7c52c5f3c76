package syncmd

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// NewCmdSync returns `git uwf sync [remote]`.
func NewCmdSync(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:        "sync",
		Usage:       "Fetch, reconcile and push: share threads both ways",
		ArgsUsage:   "[remote]",
		Description: "git uwf fetch followed by git uwf push. Running it twice reports nothing new.",
		Flags:       []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			opts, err := parseOptions(c, f, "sync")
			if err != nil {
				return err
			}
			return syncRun(c.Context, opts)
		},
	}
}

func syncRun(ctx context.Context, opts *Options) error {
	return exchange(ctx, opts, "sync", func(ctx context.Context, repo *chain.Repo, o *Options) (*uwfsync.Report, error) {
		return uwfsync.Sync(ctx, repo, o.Remote, uwfsync.PushOptions{})
	})
}
