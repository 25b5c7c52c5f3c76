package thread

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// ReadOptions are the inputs of `thread read`.
type ReadOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Thread string
	Read   chain.ReadOptions
}

func newCmdRead(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "read",
		Usage:     "Render a thread as markdown, for people and agents",
		ArgsUsage: "<thread>",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "quota", Value: chain.DefaultQuota, Usage: "character budget; the newest steps that fit are shown"},
			&cli.StringFlag{Name: "before", Usage: "only steps before this `STEP` (alias or commit)"},
			&cli.BoolFlag{Name: "start", Usage: "show the task section even with --before"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.Int("quota") <= 0 {
				return cmdutil.FlagErrorf("--quota must be positive")
			}
			arg, format, err := cmdutil.OneArgAndFormat(c, "thread id")
			if err != nil {
				return err
			}
			return readRun(c.Context, &ReadOptions{IO: f.IO, Repo: f.Repo, Format: format, Thread: arg,
				Read: chain.ReadOptions{Quota: c.Int("quota"), Before: c.String("before"), Start: c.Bool("start")}})
		},
	}
}

func readRun(ctx context.Context, opts *ReadOptions) error {
	repo, t, err := loadThread(ctx, opts.Repo, opts.Thread)
	if err != nil {
		return err
	}
	md, err := repo.Read(ctx, t, opts.Read)
	if err != nil {
		return err
	}
	return printMarkdownTo(opts.IO, opts.Format, md)
}
