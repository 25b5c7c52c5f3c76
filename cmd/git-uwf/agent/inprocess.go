package agent

import (
	"context"
	"slices"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/engine"
)

// EnvSpawnAgents set to 1 makes the engine spawn the built-in agents as
// separate git-uwf processes, like any other agent command, instead of
// running them inside the engine's process (for debugging).
const EnvSpawnAgents = "UWF_SPAWN_AGENTS"

// inProcessAgents are the built-in agents that may run inside the engine's
// process: they read nothing from the terminal, honour cancellation, and
// a CLI they start runs in its own process group as it would from a
// spawned agent. The human agent talks to the terminal and stays a process
// of its own.
var inProcessAgents = []string{"mock", "pipe", "llm"}

// InProcess returns the engine hook that runs the built-in agents inside
// this process, through the same command line handling a spawned
// `git-uwf agent …` goes through (f.RunCommand), with the engine's open
// repository. It is nil, so every agent is spawned, when f cannot run
// commands in-process or $UWF_SPAWN_AGENTS is 1.
func InProcess(f *cmdutil.Factory) engine.InProcess {
	if f.RunCommand == nil || f.Getenv(EnvSpawnAgents) == "1" {
		return nil
	}
	return commandAgents{f: f}
}

type commandAgents struct{ f *cmdutil.Factory }

// Agent accepts `agent <name> …` for the names in inProcessAgents; global
// flags before `agent`, help requests and other commands are spawned.
func (b commandAgents) Agent(args []string) engine.InProcessAgent {
	if len(args) < 2 || args[0] != "agent" || !slices.Contains(inProcessAgents, args[1]) {
		return nil
	}
	return func(ctx context.Context, call engine.AgentCall) int {
		cf := childFactory(b.f, call)
		return b.f.RunCommand(ctx, cf, append([]string{"git-uwf"}, call.Args...))
	}
}

// childFactory gives an in-process agent what its own process would have:
// the call's environment, directory and streams (stdin empty, nothing a
// terminal), and the engine's repository instead of a discovery.
func childFactory(parent *cmdutil.Factory, call engine.AgentCall) *cmdutil.Factory {
	ios, _, _, _ := iostreams.Test()
	ios.Out, ios.ErrOut = call.Stdout, call.Stderr
	env := slices.Clone(call.Env)
	dir := call.Dir
	repo := call.Repo
	return &cmdutil.Factory{
		IO:         ios,
		Getwd:      func() (string, error) { return dir, nil },
		Getenv:     func(key string) string { return lookupEnv(env, key) },
		Environ:    func() []string { return slices.Clone(env) },
		Now:        parent.Now,
		Executable: parent.Executable,
		Supervisor: parent.Supervisor,
		Repo:       func(context.Context) (*chain.Repo, error) { return repo, nil },
		RunCommand: parent.RunCommand,
	}
}

// lookupEnv returns the value of key in env; the last entry wins, as it
// does for a spawned process.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}
