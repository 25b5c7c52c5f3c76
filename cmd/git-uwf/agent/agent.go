// Package agent implements `git uwf agent`: the built-in agents (mock,
// pipe, human, llm), each speaking the agent protocol (the last two
// arguments are the thread id and the role; UWF_EDGE_PROMPT and friends
// come from the environment), plus `agent list` and `agent doctor`.
//
// Each verb is one small constructor, newCmd<Verb>(f), whose action parses
// the command line into an options struct and calls <verb>Run(ctx, opts).
// The built-in agents' options embed ProtocolOptions, what every one of
// them needs to play one protocol step.
package agent

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// protocolUsage is the argument usage shared by the built-in builtins.
const protocolUsage = "<thread-id> <role>"

// NewCmdAgent returns the `agent` command group.
func NewCmdAgent(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "agent",
		Usage: "Built-in agents and the configured agent aliases",
		Description: "The built-in agents speak the agent protocol: the engine runs them as\n" +
			"`git uwf agent <name> [flags] <thread-id> <role>` with UWF_EDGE_PROMPT_FILE (or UWF_EDGE_PROMPT) set.",
		Subcommands: []*cli.Command{
			newCmdMock(f), newCmdPipe(f), newCmdHuman(f), newCmdLLM(f), newCmdList(f), newCmdDoctor(f),
		},
	}
}

// ProtocolOptions are the inputs every built-in agent verb shares.
type ProtocolOptions struct {
	IO      *iostreams.IOStreams
	Getwd   func() (string, error)
	Getenv  func(string) string
	Environ func() []string
	Repo    func(context.Context) (*chain.Repo, error)

	// Args are the protocol's arguments: the thread id and the role are
	// the last two.
	Args []string
}

// protocolOptions returns the ProtocolOptions of f with the protocol
// arguments args.
func protocolOptions(f *cmdutil.Factory, args []string) ProtocolOptions {
	return ProtocolOptions{IO: f.IO, Getwd: f.Getwd, Getenv: llmProgramEnv(f), Environ: f.Environ, Repo: protocolRepo(f), Args: args}
}

// llmProgramEnv is f.Getenv, except that agentkit.EnvLLMProgram, which the
// engine sets for the agents it runs, is git-uwf-llm beside this
// executable when it is not set: LLM extraction and the llm agent send
// their requests through that program.
func llmProgramEnv(f *cmdutil.Factory) func(string) string {
	return func(k string) string {
		v := f.Getenv(k)
		if k == agentkit.EnvLLMProgram && v == "" {
			v = cmdutil.LLMProgram(f.Executable)
		}
		return v
	}
}

// protocolRepo returns how a built-in agent opens the repository. When the
// request pins the thread's head ($UWF_HEAD, which the engine always sets)
// the step reads no ref, and the repository is opened without taking over
// fetched threads: the engine that started the agent did that before it
// locked the thread, and an agent that took over a fetched move of the
// thread it plays would fight the engine's lock. In a repository of many
// threads with packed refs, the look for remote-tracking uwf refs that
// precedes a take-over (packed-refs read whole) was the biggest part of a
// spawned agent's own work. Run by hand without $UWF_HEAD, the agent reads
// the thread's ref and opens the repository as every command does.
func protocolRepo(f *cmdutil.Factory) func(context.Context) (*chain.Repo, error) {
	return func(ctx context.Context) (*chain.Repo, error) {
		if f.Getenv(agentkit.EnvHead) != "" {
			return cmdutil.OpenRepoWithoutAdopt(ctx, f)
		}
		return f.Repo(ctx)
	}
}

// builtinEnv is where a built-in agent run by this command runs.
func (opts *ProtocolOptions) builtinEnv() (builtins.Env, error) {
	wd, err := opts.Getwd()
	if err != nil {
		return builtins.Env{}, err
	}
	return builtins.Env{Environ: opts.Environ(), Dir: wd}, nil
}

// serve plays one protocol step with agent: the session is built from the
// thread id and role (the last two of opts.Args) in the working directory,
// the reply is extracted and stored, and the AdapterOutput line is printed.
// A failure also prints an AdapterOutput (with the error and the nodes
// kept) before returning the error.
func serve(ctx context.Context, opts *ProtocolOptions, agent agentkit.Agent) error {
	if len(opts.Args) < 2 {
		return cmdutil.FlagErrorf("missing %s (the engine appends them)", protocolUsage)
	}
	// A step allocates a few MiB that live until the process ends: as in
	// `thread step`, collecting at the default pace frees next to nothing.
	defer cmdutil.RelaxGC(opts.Getenv)()
	req, err := agentkit.RequestFromEnv(opts.Args, opts.Getenv)
	if err != nil {
		return err
	}
	if req.Cwd, err = opts.Getwd(); err != nil {
		return err
	}
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	out, err := agentkit.ServeOn(ctx, repo, agent, req, opts.IO.ErrOut, opts.Getenv)
	if err != nil {
		_ = agentkit.FailureOutput(err).Print(opts.IO.Out)
		return err
	}
	return out.Print(opts.IO.Out)
}
