// Package agent implements `git uwf agent`: the built-in agents (mock,
// pipe, human, llm), each speaking the agent protocol (the last two
// arguments are the thread id and the role; UWF_EDGE_PROMPT and friends
// come from the environment), plus `agent list` and `agent doctor`.
package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/config"
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
	if env := f.Getenv(agentkit.EnvRole); env != "" && env != req.Role {
		return fmt.Errorf("role argument %q disagrees with %s=%q", req.Role, agentkit.EnvRole, env)
	}
	out, err := execute(ctx, f, agent, req)
	if err != nil {
		failure := &agentkit.AdapterOutput{Error: err.Error()}
		var se *agentkit.StepError
		if errors.As(err, &se) {
			for _, a := range se.Nodes {
				failure.Nodes = append(failure.Nodes, string(a))
			}
		}
		_ = failure.Print(f.IO.Out)
		return err
	}
	return out.Print(f.IO.Out)
}

func execute(ctx context.Context, f *cmdutil.Factory, agent agentkit.Agent, req agentkit.Request) (*agentkit.AdapterOutput, error) {
	opts, err := agentkit.OptionsFromEnv(f.Getenv)
	if err != nil {
		return nil, err
	}
	repo, err := f.Repo(ctx)
	if err != nil {
		return nil, err
	}
	s, err := agentkit.NewSession(ctx, repo, req, opts)
	if err != nil {
		return nil, err
	}
	s.Log = f.IO.ErrOut
	return agentkit.Execute(ctx, s, agent, opts)
}

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
			env, err := builtinEnv(f)
			if err != nil {
				return err
			}
			m, err := builtins.NewMockAgent(builtins.MockFlags{Script: c.String("script")}, env)
			if err != nil {
				return err
			}
			return serve(c.Context, f, m, c.Args().Slice())
		},
	}
}

// builtinEnv is where a built-in agent run by this command runs.
func builtinEnv(f *cmdutil.Factory) (builtins.Env, error) {
	wd, err := f.Getwd()
	if err != nil {
		return builtins.Env{}, err
	}
	return builtins.Env{Environ: f.Environ(), Dir: wd}, nil
}

func newCmdHuman(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "human",
		Usage:     "Let a person answer, in $VISUAL/$EDITOR or on stdin",
		ArgsUsage: protocolUsage,
		Description: "The editor opens a file pre-filled with a frontmatter template for the role\n" +
			"and the full prompt as comments below a scissors line. When stdin is not a\n" +
			"terminal and carries text, that text is the answer. An empty or unchanged\n" +
			"answer fails with \"no answer given\".",
		Action: func(c *cli.Context) error {
			h := &builtins.Human{Stdin: f.IO.In, StdinTTY: f.IO.IsStdinTTY(), Editor: builtins.EditorFrom(f.Getenv),
				Stderr: f.IO.ErrOut, Env: f.Environ()}
			return serve(c.Context, f, h, c.Args().Slice())
		},
	}
}

func newCmdLLM(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "llm",
		Usage:     "Answer with an OpenAI-compatible chat completion",
		ArgsUsage: protocolUsage,
		Description: "The endpoint is models.<model> (default: models.default) and its provider from\n" +
			"the configuration, or --base-url and --model. The API key is read from the\n" +
			"environment variable the provider names (apiKeyEnv) or --api-key-env, or\n" +
			"from the user-level .env file.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base-url", Usage: "API root `URL`, e.g. https://api.openai.com/v1"},
			&cli.StringFlag{Name: "model", Usage: "configured model alias, or the model `NAME` to send"},
			&cli.StringFlag{Name: "api-key-env", Usage: "environment `VARIABLE` holding the API key"},
			&cli.DurationFlag{Name: "timeout", Usage: "bound one request", Value: builtins.DefaultLLMTimeout},
		},
		Action: func(c *cli.Context) error {
			ep, err := llmEndpoint(c, f)
			if err != nil {
				return err
			}
			return serve(c.Context, f, &builtins.LLM{Endpoint: ep}, c.Args().Slice())
		},
	}
}

func llmEndpoint(c *cli.Context, f *cmdutil.Factory) (agentkit.LLMEndpoint, error) {
	flags := builtins.LLMFlags{BaseURL: c.String("base-url"), Model: c.String("model"),
		APIKeyEnv: c.String("api-key-env"), Timeout: c.Duration("timeout")}
	if flags.BaseURL != "" && flags.Model == "" {
		return agentkit.LLMEndpoint{}, cmdutil.FlagErrorf("--base-url needs --model")
	}
	wd, err := f.Getwd()
	if err != nil {
		return agentkit.LLMEndpoint{}, err
	}
	cfg, err := config.LoadDir(c.Context, wd, f.Getenv)
	if err != nil {
		return agentkit.LLMEndpoint{}, err
	}
	return cfg.LLMAgentEndpoint(flags)
}

// newCmdPipe parses its own flags: everything after `--` is the command,
// and the last two arguments are the protocol's.
func newCmdPipe(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:            "pipe",
		Usage:           "Pipe the prompt to a headless agent CLI (claude, codex, …)",
		ArgsUsage:       "[--preset NAME] [--model NAME] [--timeout DURATION] [--no-resume] [--] [<command>…] " + protocolUsage,
		SkipFlagParsing: true,
		Description: "Runs the command with the full prompt on stdin (stdin is then closed) and\n" +
			"takes stdout as the answer. --preset picks a known CLI's headless command line\n" +
			"and output parser; a command after -- replaces the preset's command line.\n" +
			"Presets: " + strings.Join(builtins.PresetNames(), ", ") + ".\n" +
			"--model adds the preset's model flag (ollama needs it; also $UWF_PIPE_MODEL).\n" +
			"A preset that can resume continues the session of the thread's last step of\n" +
			"the same role (--no-resume: always a new session).",
		Action: func(c *cli.Context) error {
			args, err := builtins.ParsePipeArgs(c.Args().Slice())
			if err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			if args.Help {
				return cli.ShowSubcommandHelp(c)
			}
			env, err := builtinEnv(f)
			if err != nil {
				return err
			}
			if f.Supervisor != nil {
				if env.Supervisor, err = f.Supervisor(); err != nil {
					return fmt.Errorf("find the git-uwf executable: %w", err)
				}
			}
			p, err := builtins.NewPipeAgent(args, env)
			if err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			return serve(c.Context, f, p, args.Protocol)
		},
	}
}
