package configcmd

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

func newCmdSet(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "set",
		Usage:     "Set a key in one configuration file",
		ArgsUsage: "[--user|--repo|--team] <key> <value>",
		Description: "A command line (agents.<alias>.command) is a shell-quoted string or a YAML\n" +
			"list like '[\"./agent.sh\", \"--fast\"]'. Secrets cannot be stored: name the\n" +
			"environment variable that holds a key with providers.<name>.apiKeyEnv.",
		Flags: scopeFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return cmdutil.FlagErrorf("want <key> <value>, got %d arguments", c.NArg())
			}
			scope, err := scopeOf(c)
			if err != nil {
				return err
			}
			return setRun(c.Context, &WriteOptions{Paths: f.ConfigPaths, Scope: scope,
				Key: c.Args().Get(0), Value: c.Args().Get(1)})
		},
	}
}

func setRun(ctx context.Context, opts *WriteOptions) error {
	paths, scope, err := target(ctx, opts)
	if err != nil {
		return err
	}
	return paths.Set(scope, opts.Key, opts.Value)
}
