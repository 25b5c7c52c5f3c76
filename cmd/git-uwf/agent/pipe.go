package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

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
