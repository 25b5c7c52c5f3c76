package agent

import (
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/agentkit"
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
			wd, err := f.Getwd()
			if err != nil {
				return err
			}
			path, err := builtins.ResolveMockScript(c.String("script"), agentkit.InvocationDir(f.Getenv, wd), f.Getenv)
			if err != nil {
				return err
			}
			script, err := builtins.LoadMockScript(path)
			if err != nil {
				return err
			}
			return serve(c.Context, f, &builtins.Mock{Script: script, Path: path}, c.Args().Slice())
		},
	}
}
