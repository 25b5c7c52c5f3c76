package root

import "github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"

// SupervisorProgram is the agent supervisor's program of its own
// (cmd/git-uwf-agent-supervisor), installed next to git-uwf.
const SupervisorProgram = "git-uwf-agent-supervisor"

// supervisor returns the program that supervises the agents git-uwf
// spawns (cmdutil.Factory.Supervisor): SupervisorProgram installed beside
// the running executable (cmdutil.Companion, the lookup `git uwf serve`
// uses, without PATH: a supervisor must come from the same installation),
// which starts in about the time of any process; else the executable
// itself, which does the same work from an init function (package
// agentkit/supervisor/early) but starts the Go runtime of a large program
// and the packages that initialise before that one.
func supervisor(executable func() (string, error)) (string, error) {
	if p, _ := cmdutil.Companion(executable, SupervisorProgram); p != "" {
		return p, nil
	}
	return executable()
}
