package agent

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

// MockOptions are the inputs of `agent mock`.
type MockOptions struct {
	ProtocolOptions
	// Script is the --script file ("" uses $UWF_MOCK_SCRIPT).
	Script string
}

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
			return mockRun(c.Context, &MockOptions{ProtocolOptions: protocolOptions(f, c.Args().Slice()), Script: c.String("script")})
		},
	}
}

func mockRun(ctx context.Context, opts *MockOptions) error {
	env, err := opts.builtinEnv()
	if err != nil {
		return err
	}
	m, err := builtins.NewMockAgent(builtins.MockFlags{Script: opts.Script}, env)
	if err != nil {
		return err
	}
	return serve(ctx, &opts.ProtocolOptions, m)
}
