package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

// PipeOptions are the inputs of `agent pipe`.
type PipeOptions struct {
	ProtocolOptions
	// Supervisor, when set, returns the program that supervises the
	// piped command (see cmdutil.Factory.Supervisor).
	Supervisor func() (string, error)
	// Pipe is the parsed command line (its Protocol arguments are
	// ProtocolOptions.Args).
	Pipe builtins.PipeArgs
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
			return pipeRun(c.Context, &PipeOptions{ProtocolOptions: protocolOptions(f, args.Protocol),
				Supervisor: f.Supervisor, Pipe: args})
		},
	}
}

func pipeRun(ctx context.Context, opts *PipeOptions) error {
	env, err := opts.builtinEnv()
	if err != nil {
		return err
	}
	if opts.Supervisor != nil {
		if env.Supervisor, err = opts.Supervisor(); err != nil {
			return fmt.Errorf("find the git-uwf executable: %w", err)
		}
	}
	p, err := builtins.NewPipeAgent(opts.Pipe, env)
	if err != nil {
		return cmdutil.FlagErrorf("%v", err)
	}
	return serve(ctx, &opts.ProtocolOptions, p)
}
