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

// Commands returns the top-level commands, in the order help lists them.
// This is the one place commands are registered: add a group here as
// <group>.NewCmd<Group>(f) from its package under cmd/git-uwf/<group>.
func Commands(f *cmdutil.Factory) []*cli.Command {
	return []*cli.Command{
		thread.NewCmdThread(f),
		thread.NewCmdStep(f),
		workflow.NewCmdWorkflow(f),
		cas.NewCmdCas(f),
		reviewcmd.NewCmdReview(f),
		syncmd.NewCmdFetch(f),
		syncmd.NewCmdPush(f),
		syncmd.NewCmdSync(f),
		syncmd.NewCmdRemote(f),
		worker.NewCmdWorker(f),
		serveexec.NewCmdServe(f),
		agent.NewCmdAgent(f),
		setup.NewCmdSetup(f),
		configcmd.NewCmdConfig(f),
		demo.NewCmdDemo(f),
		completion.NewCmdCompletion(f),
		completion.NewCmdComplete(f),
		newCmdVersion(f),
	}
}
