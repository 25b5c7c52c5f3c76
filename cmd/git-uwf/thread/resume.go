package thread

import (
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/internal/workdir"
)

func newCmdResume(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "Re-run the role a suspended thread stopped at, with the suspend message and your answer; or continue an ended thread through its $START resume edge",
		ArgsUsage: "<thread>",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "your answer or extra instruction `TEXT`"},
		}, agentFlags()...),
		Action: func(c *cli.Context) error {
			arg, err := cmdutil.OneArg(c, "thread id")
			if err != nil {
				return err
			}
			opts := &StepOptions{Factory: f, Thread: arg, Agent: c.String("agent"), Count: 1, Timeout: c.Duration("timeout"),
				Verbose: verbose(c), Quiet: c.Bool("quiet"), Resume: true, Prompt: c.String("prompt"),
				Cwd: c.String("cwd"), OutsideWorktree: c.Bool(workdir.OutsideFlag)}
			if opts.Format, err = cmdutil.FormatOf(c); err != nil {
				return err
			}
			return stepRun(c.Context, opts)
		},
	}
}
