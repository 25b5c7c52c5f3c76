package thread

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

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
			tc, err := parseThreadCommand(c, f)
			if err != nil {
				return err
			}
			repo, t, format := tc.repo, tc.thread, tc.format
			md, err := repo.Read(c.Context, t, chain.ReadOptions{Quota: c.Int("quota"), Before: c.String("before"), Start: c.Bool("start")})
			if err != nil {
				return err
			}
			return printMarkdown(f, format, md)
		},
	}
}

// printMarkdown writes markdown as text, or as {"markdown": …}.
func printMarkdown(f *cmdutil.Factory, format cmdutil.Format, md string) error {
	return cmdutil.Print(f.IO, format, map[string]string{"markdown": md}, func(w io.Writer) error {
		_, err := io.WriteString(w, md)
		return err
	})
}
