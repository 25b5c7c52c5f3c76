package configcmd

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

func newCmdUnset(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "unset",
		Usage:     "Remove a key from one configuration file",
		ArgsUsage: "[--user|--repo|--team] <key>",
		Flags:     scopeFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.FlagErrorf("want one key, got %d arguments", c.NArg())
			}
			scope, err := scopeOf(c)
			if err != nil {
				return err
			}
			return unsetRun(c.Context, &WriteOptions{Paths: f.ConfigPaths, Scope: scope, Key: c.Args().First()})
		},
	}
}

func unsetRun(ctx context.Context, opts *WriteOptions) error {
	paths, scope, err := target(ctx, opts)
	if err != nil {
		return err
	}
	return paths.Unset(scope, opts.Key)
}
