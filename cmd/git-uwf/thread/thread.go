package thread

import (
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

// NewCmdThread returns the `thread` command group.
func NewCmdThread(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "thread",
		Usage: "Start, step, resume, inspect and fork workflow runs",
		Subcommands: []*cli.Command{
			newCmdStart(f),
			newCmdStep(f),
			newCmdResume(f),
			newCmdShow(f),
			newCmdList(f),
			newCmdSteps(f),
			newCmdRead(f),
			newCmdFork(f),
			newCmdCancel(f),
			newCmdJoin(f),
			newCmdExport(f),
			newCmdRemove(f),
			newCmdImport(f),
			newCmdGraph(f),
			newCmdWatch(f),
		},
	}
}

// NewCmdStep returns the `step` command group.
func NewCmdStep(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:        "step",
		Usage:       "Inspect one step",
		Subcommands: []*cli.Command{newCmdStepShow(f), newCmdStepRead(f)},
	}
}
