package root

import (
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/agent"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/cas"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/completion"
	configcmd "github.com/git-uwf/git-uwf/cmd/git-uwf/config"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/demo"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/reviewcmd"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/serveexec"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/setup"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/syncmd"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/thread"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/worker"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/workflow"
)

// registered returns the top-level commands, in the order help lists them.
// This is the one place commands are registered: add a group here as
// {names: []string{"<group>"}, build: <group>.NewCmd<Group>} from its
// package under cmd/git-uwf/<group>. The names are the command's Name and
// Aliases (TestRegisteredNames checks them), so that a run can build the
// one command its arguments name and leave the others unbuilt.
func registered() []command {
	return []command{
		{names: []string{"thread"}, build: thread.NewCmdThread},
		{names: []string{"step"}, build: thread.NewCmdStep},
		{names: []string{"workflow"}, build: workflow.NewCmdWorkflow},
		{names: []string{"cas"}, build: cas.NewCmdCas},
		{names: []string{"review"}, build: reviewcmd.NewCmdReview},
		{names: []string{"fetch"}, build: syncmd.NewCmdFetch},
		{names: []string{"push"}, build: syncmd.NewCmdPush},
		{names: []string{"sync"}, build: syncmd.NewCmdSync},
		{names: []string{"remote"}, build: syncmd.NewCmdRemote},
		{names: []string{"worker"}, build: worker.NewCmdWorker},
		{names: []string{"serve"}, build: serveexec.NewCmdServe},
		{names: []string{"agent"}, build: agent.NewCmdAgent},
		{names: []string{"setup"}, build: setup.NewCmdSetup},
		{names: []string{"config"}, build: configcmd.NewCmdConfig},
		{names: []string{"demo"}, build: demo.NewCmdDemo},
		{names: []string{"completion"}, build: completion.NewCmdCompletion, quick: true},
		// __complete completes from the whole command tree (c.App.Commands).
		{names: []string{"__complete"}, build: completion.NewCmdComplete, wholeTree: true},
		{names: []string{"version"}, build: newCmdVersion, quick: true},
	}
}

// Commands returns the top-level commands, built in full with all their
// subcommands, in the order help lists them (see registered).
func Commands(f *cmdutil.Factory) []*cli.Command { return buildAll(f, registered()) }

// A command is a top-level command before it is built.
type command struct {
	// names are the names the command line may call it by: its Name, then
	// its Aliases.
	names []string
	// build builds the command with all its subcommands.
	build func(*cmdutil.Factory) *cli.Command
	// wholeTree is set for a command that reads the whole command tree
	// when it runs: a run of it builds every command.
	wholeTree bool
	// quick is set for a command that finishes at once and neither reads
	// nor writes a repository (it prints what it holds): a run of it
	// starts no signal handling, so SIGINT and SIGTERM end it the default
	// way (see signalContext).
	quick bool
}

// buildAll builds every command of cmds.
func buildAll(f *cmdutil.Factory, cmds []command) []*cli.Command {
	out := make([]*cli.Command, len(cmds))
	for i, c := range cmds {
		out[i] = c.build(f)
	}
	return out
}

// needed returns the commands a run of args needs built: the one args
// name (found the way reorder finds it, with global flags anywhere), or
// all of them when args name none (the app's help, an unknown command and
// its "did you mean" list every command) or name one that reads the whole
// tree. flags are the app's flags. named is the command args name, nil
// when they name none of cmds.
func needed(flags []cli.Flag, cmds []command, args []string) (build []command, named *command) {
	light := make([]cli.Command, len(cmds))
	names := make([]*cli.Command, len(cmds))
	for i, c := range cmds {
		light[i] = cli.Command{Name: c.names[0], Aliases: c.names[1:]}
		names[i] = &light[i]
	}
	_, path := reorder(flags, names, args)
	if len(path) == 0 {
		return cmds, nil
	}
	for i, c := range cmds {
		if c.names[0] == path[0] {
			if c.wholeTree {
				return cmds, &cmds[i]
			}
			return []command{c}, &cmds[i]
		}
	}
	return cmds, nil
}
