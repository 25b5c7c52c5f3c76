package syncmd

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// NewCmdPush returns `git uwf push [remote]`.
func NewCmdPush(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "Push threads, workflows and failed attempts to a remote (never forced)",
		ArgsUsage: "[remote]",
		Description: "Runs git push --atomic <remote> for the refs under refs/uwf/{threads,workflows,attempts}/\n" +
			"that differ from what the remote held when you last fetched or pushed, without\n" +
			"forcing: if the remote has steps you do not have, the push is rejected and nothing\n" +
			"is overwritten; run git uwf sync. Only the named remote (or uwf.remote) is used.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "show what would be pushed", DisableDefaultText: true},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			opts, err := parseOptions(c, f, "push")
			if err != nil {
				return err
			}
			opts.DryRun = c.Bool("dry-run")
			return pushRun(c.Context, opts)
		},
	}
}

func pushRun(ctx context.Context, opts *Options) error {
	return exchange(ctx, opts, "push", func(ctx context.Context, repo *chain.Repo, o *Options) (*uwfsync.Report, error) {
		return uwfsync.Push(ctx, repo, o.Remote, uwfsync.PushOptions{DryRun: o.DryRun})
	})
}
