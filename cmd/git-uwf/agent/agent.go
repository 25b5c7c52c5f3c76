// Package agent implements `git uwf agent`: the built-in agents (mock,
// pipe, human, llm), each speaking the agent protocol (the last two
// arguments are the thread id and the role; UWF_EDGE_PROMPT and friends
// come from the environment), plus `agent list` and `agent doctor`.
package agent

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
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

// serve plays one protocol step with agent: the session is built from the
// thread id and role (the last two of args) in the working directory, the
// reply is extracted and stored, and the AdapterOutput line is printed. A
// failure also prints an AdapterOutput (with the error and the nodes kept)
// before returning the error.
func serve(ctx context.Context, f *cmdutil.Factory, agent agentkit.Agent, args []string) error {
	if len(args) < 2 {
		return cmdutil.FlagErrorf("missing %s (the engine appends them)", protocolUsage)
	}
	req, err := agentkit.RequestFromEnv(args, f.Getenv)
	if err != nil {
		return err
	}
	if req.Cwd, err = f.Getwd(); err != nil {
		return err
	}
	repo, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	out, err := agentkit.ServeOn(ctx, repo, agent, req, f.IO.ErrOut, f.Getenv)
	if err != nil {
		_ = agentkit.FailureOutput(err).Print(f.IO.Out)
		return err
	}
	return out.Print(f.IO.Out)
}
