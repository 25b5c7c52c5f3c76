package agent

import (
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

func newCmdMock(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "mock",
		Usage:     "Replay a scripted answer for each step (tests, demos, CI)",
		ArgsUsage: protocolUsage,
		Description: "The script is YAML: steps: [{role, output, corrections: [text…]}]. Step n of\n" +
			"the thread (counting the steps already in it) gets steps[n]; its role must\n" +
			"match. A relative --script is resolved against the directory git-uwf was\n" +
			"run in ($UWF_INVOCATION_DIR; by hand: the working directory);\n" +
			"without --script, $UWF_MOCK_SCRIPT is used.",
		Flags: []cli.Flag{&cli.StringFlag{Name: "script", Usage: "the mock script `FILE`"}},
		Action: func(c *cli.Context) error {
			env, err := builtinEnv(f)
			if err != nil {
				return err
			}
			m, err := builtins.NewMockAgent(builtins.MockFlags{Script: c.String("script")}, env)
			if err != nil {
				return err
			}
			return serve(c.Context, f, m, c.Args().Slice())
		},
	}
}

// builtinEnv is where a built-in agent run by this command runs.
func builtinEnv(f *cmdutil.Factory) (builtins.Env, error) {
	wd, err := f.Getwd()
	if err != nil {
		return builtins.Env{}, err
	}
	return builtins.Env{Environ: f.Environ(), Dir: wd}, nil
}
