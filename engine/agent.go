package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/config"
)

// EnvSpawnAgents set to 1 makes the commands that step threads spawn the
// built-in agents as processes of their own, like any other agent command,
// instead of calling them inside the engine's process (for debugging; see
// Engine.SpawnBuiltins).
const EnvSpawnAgents = "UWF_SPAWN_AGENTS"

// Agent plays one step's role: a command the engine spawns, or one of this
// program's built-in agents called as a Go function. Either way it runs
// under the call's limits and answers with the agent protocol's
// AdapterOutput; the engine verifies and appends what it names.
type Agent interface {
	// Run plays the call. The error is the run's own failure (a non-zero
	// exit, a timeout, a cancellation, too much output: an
	// *agentkit.AgentError); the answer is what the agent left behind,
	// even then. The answer is nil only with an error.
	Run(ctx context.Context, call *Call) (*Answer, error)
}

// Call is one request to an agent: what the agent protocol hands a spawned
// agent, and the limits of its run.
type Call struct {
	// Thread and Role are the protocol's last two arguments.
	Thread chain.ThreadID
	Role   string
	// Env is the agent's whole environment, with the protocol's variables.
	Env []string
	// Dir is the step's working directory.
	Dir string
	// Repo is the repository the engine opened; an agent running in this
	// process uses it in place of a second discovery.
	Repo *chain.Repo
	// Limits bound the run: Timeout, MaxOutput, the live Stderr copy and,
	// for a spawned command, Supervisor and Hold. Command, Args, Env and
	// Dir are the agent's to fill in.
	Limits agentkit.Invocation
}

// Answer is what an agent left behind.
type Answer struct {
	// Output is the agent's AdapterOutput; nil when it gave none, and
	// NoOutput then says why.
	Output   *agentkit.AdapterOutput
	NoOutput error
	// Result holds the agent's captured stdout, stderr and exit status, as
	// a process leaves them (kept in the attempt of a failed step).
	Result *agentkit.Result
}

// agentFor returns the agent that plays role in thread id with spec's
// command line argv (already resolved by resolveArgv): a built-in agent of this program that can run
// in-process is called directly unless e.SpawnBuiltins; every other
// command is spawned.
func (e *Engine) agentFor(spec config.AgentSpec, argv []string, invDir string, id chain.ThreadID, role string) Agent {
	if args, ok := BuiltinArgs(spec.Argv); ok && !e.SpawnBuiltins {
		if cmd, ok := builtins.ParseCommand(append(slices.Clone(args), string(id), role)); ok {
			return &builtinAgent{cmd: cmd, command: argv[0], supervisor: e.Supervisor}
		}
	}
	argv = slices.Clone(argv)
	argv[0] = agentkit.ResolveCommand(argv[0], invDir)
	return &commandAgent{argv: argv, spec: spec.Argv}
}

// commandAgent is an agent command the engine spawns.
type commandAgent struct {
	// argv is the command line, without the protocol's arguments; spec is
	// the configured one (for the hint on a bad output).
	argv, spec []string
}

func (c *commandAgent) Run(ctx context.Context, call *Call) (*Answer, error) {
	inv := call.Limits
	inv.Command = c.argv[0]
	inv.Args = append(slices.Clone(c.argv[1:]), string(call.Thread), call.Role)
	inv.Env, inv.Dir = call.Env, call.Dir
	res, err := agentkit.Run(ctx, inv)
	a := &Answer{Result: res}
	if res != nil {
		var perr error
		if a.Output, perr = agentkit.ParseAdapterOutput(res.Stdout); a.Output == nil {
			a.NoOutput = withPipeHint(perr, res.Stdout, c.spec)
		}
	}
	return a, err
}

// builtinAgent is a built-in agent of this program, called as a Go
// function inside the engine's process with what `git-uwf agent <name>`
// would get from its own process. It writes to stdout only when it fails:
// the AdapterOutput line the command would have printed, for the attempt.
type builtinAgent struct {
	cmd builtins.Command
	// command names the agent in errors: this program's executable.
	command string
	// supervisor supervises the commands the agent starts (the pipe's).
	supervisor string
}

func (b *builtinAgent) Run(ctx context.Context, call *Call) (*Answer, error) {
	inv := call.Limits
	inv.Command = b.command
	var (
		mu        sync.Mutex
		out       *agentkit.AdapterOutput
		abandoned bool
	)
	res, err := agentkit.RunFunc(ctx, inv, func(ctx context.Context, stdout, stderr io.Writer) int {
		o, err := b.serve(ctx, call, stderr)
		code := 0
		if err != nil {
			o, code = agentkit.FailureOutput(err), b.report(stderr, err)
			_ = o.Print(stdout)
		}
		mu.Lock()
		defer mu.Unlock()
		if !abandoned {
			out = o
		}
		return code
	})
	mu.Lock()
	defer mu.Unlock()
	abandoned = true
	a := &Answer{Output: out, Result: res}
	if out == nil {
		a.NoOutput = fmt.Errorf("built-in agent %s stopped without an answer", b.cmd.Name)
	}
	return a, err
}

// serve plays the call as `git-uwf agent <name>` does: the agent from its
// flags, the request from the protocol's environment, then
// agentkit.ServeOn on the engine's repository.
func (b *builtinAgent) serve(ctx context.Context, call *Call, log io.Writer) (*agentkit.AdapterOutput, error) {
	env := builtins.Env{Environ: call.Env, Dir: call.Dir, Supervisor: b.supervisor}
	agent, err := b.agent(ctx, env)
	if err != nil {
		return nil, err
	}
	req, err := agentkit.RequestFromEnv([]string{string(call.Thread), call.Role}, env.Getenv)
	if err != nil {
		return nil, err
	}
	req.Cwd = call.Dir
	return agentkit.ServeOn(ctx, call.Repo, agent, req, log, env.Getenv)
}

// agent builds the built-in agent its command line names.
func (b *builtinAgent) agent(ctx context.Context, env builtins.Env) (agentkit.Agent, error) {
	switch b.cmd.Name {
	case "mock":
		return builtins.NewMockAgent(b.cmd.Mock, env)
	case "pipe":
		return builtins.NewPipeAgent(b.cmd.Pipe, env)
	case "llm":
		cfg, err := config.LoadDir(ctx, env.Dir, env.Getenv)
		if err != nil {
			return nil, err
		}
		ep, err := cfg.LLMAgentEndpoint(b.cmd.LLM)
		if err != nil {
			return nil, err
		}
		ep.Program = env.Getenv(agentkit.EnvLLMProgram)
		return &builtins.LLM{Endpoint: ep}, nil
	}
	return nil, fmt.Errorf("no built-in agent %q", b.cmd.Name)
}

// report writes err to stderr as the command would and returns the
// command's exit status: 2 for a usage error, 130 for a cancellation
// (printed by nobody), else 1.
func (b *builtinAgent) report(stderr io.Writer, err error) int {
	if errors.Is(err, context.Canceled) {
		return 130
	}
	msg := strings.TrimRight(err.Error(), "\n")
	if _, ok := errors.AsType[*builtins.FlagError](err); ok {
		hint := fmt.Sprintf("run 'git uwf agent %s -h' for usage", b.cmd.Name)
		if strings.Contains(msg, "\n") {
			msg += "\n" + hint
		} else {
			msg += "; " + hint
		}
		fmt.Fprintf(stderr, "error: %s\n", msg)
		return 2
	}
	fmt.Fprintf(stderr, "error: %s\n", msg)
	return 1
}

// BuiltinArgs returns the arguments after the program name when argv runs
// this program ("git-uwf …" or "git uwf …"); ok is false for any other
// command.
func BuiltinArgs(argv []string) (args []string, ok bool) {
	switch {
	case len(argv) > 0 && argv[0] == "git-uwf":
		return argv[1:], true
	case len(argv) > 1 && argv[0] == "git" && argv[1] == "uwf":
		return argv[2:], true
	}
	return nil, false
}
