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
	"time"

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
			wd, err := f.Getwd()
			if err != nil {
				return err
			}
			path, err := builtins.ResolveMockScript(c.String("script"), agentkit.InvocationDir(f.Getenv, wd), f.Getenv)
			if err != nil {
				return err
			}
			script, err := builtins.LoadMockScript(path)
			if err != nil {
				return err
			}
			return serve(c.Context, f, &builtins.Mock{Script: script, Path: path}, c.Args().Slice())
		},
	}
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
			&cli.DurationFlag{Name: "timeout", Usage: "bound one request", Value: 10 * time.Minute},
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
	wd, err := f.Getwd()
	if err != nil {
		return agentkit.LLMEndpoint{}, err
	}
	cfg, err := config.LoadDir(c.Context, wd, f.Getenv)
	if err != nil {
		return agentkit.LLMEndpoint{}, err
	}
	model := c.String("model")
	var ep agentkit.LLMEndpoint
	switch _, isAlias := cfg.Models[model]; {
	case c.String("base-url") != "":
		if model == "" {
			return ep, cmdutil.FlagErrorf("--base-url needs --model")
		}
		ep = agentkit.LLMEndpoint{BaseURL: c.String("base-url"), Model: model}
	case isAlias:
		if ep, err = cfg.Endpoint(model); err != nil {
			return ep, err
		}
	default:
		if ep, err = cfg.Endpoint(""); err != nil {
			return ep, fmt.Errorf("the llm agent has no endpoint: %w; or pass --base-url and --model", err)
		}
		if model != "" {
			ep.Model = model
		}
	}
	if name := c.String("api-key-env"); name != "" {
		ep.APIKey = cfg.Secret(name)
		if ep.APIKey == "" {
			return ep, fmt.Errorf("--api-key-env %s: the variable is not set (nor in %s)", name, cfg.Paths().DotenvPath())
		}
	}
	ep.Timeout = c.Duration("timeout")
	return ep, nil
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
			opts, err := parsePipeArgs(c.Args().Slice())
			if err != nil {
				return err
			}
			if opts.help {
				return cli.ShowSubcommandHelp(c)
			}
			if opts.model == "" {
				opts.model = f.Getenv(builtins.EnvPipeModel)
			}
			p, err := builtins.NewPipe(opts.preset, opts.command, opts.model)
			if err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			p.Timeout, p.Env, p.NoResume = opts.timeout, f.Environ(), opts.noResume
			wd, err := f.Getwd()
			if err != nil {
				return err
			}
			p.Dir = agentkit.InvocationDir(f.Getenv, wd)
			if f.Supervisor != nil {
				if p.Supervisor, err = f.Supervisor(); err != nil {
					return fmt.Errorf("find the git-uwf executable: %w", err)
				}
			}
			return serve(c.Context, f, p, opts.protocol)
		},
	}
}

type pipeArgs struct {
	preset, model string
	timeout       time.Duration
	command       []string
	protocol      []string
	help          bool
	noResume      bool
}

// parsePipeArgs reads `[flags] [--] [command…] <thread-id> <role>`.
func parsePipeArgs(args []string) (pipeArgs, error) {
	var o pipeArgs
	i := 0
	value := func(name string, inline *string) (string, error) {
		if inline != nil {
			return *inline, nil
		}
		if i+1 >= len(args) {
			return "", cmdutil.FlagErrorf("flag needs an argument: %s", name)
		}
		i++
		return args[i], nil
	}
loop:
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		name, v, hasValue := strings.Cut(a, "=")
		var inline *string
		if hasValue {
			inline = &v
		}
		switch name {
		case "-h", "--help":
			o.help = true
			return o, nil
		case "--no-resume":
			o.noResume = true
		case "--preset", "--model", "--timeout":
			val, err := value(name, inline)
			if err != nil {
				return o, err
			}
			switch name {
			case "--preset":
				o.preset = val
			case "--model":
				o.model = val
			default:
				d, err := time.ParseDuration(val)
				if err != nil || d <= 0 {
					return o, cmdutil.FlagErrorf("--timeout %q: want a positive duration like 90s or 30m", val)
				}
				o.timeout = d
			}
		default:
			break loop
		}
	}
	rest := args[i:]
	if len(rest) > 0 && strings.HasPrefix(rest[0], "-") && rest[0] != "-" && (i == 0 || args[i-1] != "--") {
		return o, cmdutil.FlagErrorf("unknown flag: %s (put the command after --)", rest[0])
	}
	if len(rest) < 2 {
		return o, cmdutil.FlagErrorf("missing %s (the engine appends them)", protocolUsage)
	}
	o.command, o.protocol = rest[:len(rest)-2], rest[len(rest)-2:]
	return o, nil
}
