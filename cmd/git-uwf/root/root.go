package root

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// Names of the global flags.
const (
	flagDir     = "C"
	flagVerbose = "verbose"
	flagVersion = "version"
)

// Main runs git-uwf with the process's arguments and streams and returns the
// exit code. Once a command that can take a while starts (any but a quick
// one: see command.quick), the first SIGINT or SIGTERM cancels the context
// it runs under and a second one ends the process.
func Main() int {
	ctx, watchSignals, stop := signalContext()
	defer stop()
	f := cmdutil.NewFactory(iostreams.System())
	// git-uwf-agent-supervisor supervises the agents git-uwf spawns; main
	// imports agentkit/supervisor/early, so that this binary can do the
	// same where that program is not installed.
	f.Supervisor = func() (string, error) { return supervisor(os.Executable) }
	return run(ctx, f, os.Args, registered(), watchSignals)
}

// MainCommand is Main for a program that carries one command of git uwf
// on its own (git-uwf-serve carries serve): the process's arguments are
// that command's, and it runs them as `git uwf <command> <arguments>`,
// with the same global flags, help, errors and exit codes.
func MainCommand(newCmd func(*cmdutil.Factory) *cli.Command) int {
	ctx, watchSignals, stop := signalContext()
	defer stop()
	return runCommand(ctx, cmdutil.NewFactory(iostreams.System()), newCmd, os.Args[1:], watchSignals)
}

// signalContext returns the context commands run under, watch, which
// starts watching for signals, and stop, which cancels the context. Once
// watching, the first SIGINT or SIGTERM cancels the context; a second one
// then ends the process the default way. Until watch is called both keep
// their default action and end the process at once, as they should a
// command that finishes at once: the process then starts neither the
// goroutines nor the threads that signal handling takes (the runtime
// starts a thread for it, and one more when that one blocks; see
// docs/performance.md, "Eighth round"). One goroutine waits for the signal
// (signal.NotifyContext would start a second one, to undo the notification
// after the first signal).
func signalContext() (ctx context.Context, watch func(), stop context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	watch = sync.OnceFunc(func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() {
			select {
			case <-sig:
			case <-ctx.Done():
			}
			// Before cancelling, so that a command that has seen the
			// cancellation is killed by the next signal.
			signal.Stop(sig)
			cancel()
		}()
	})
	return ctx, watch, cancel
}

// Run runs one command line (args[0] is the program name) and returns its
// exit code; errors are printed to f.IO.ErrOut. It never exits the process
// and leaves signals alone.
//
// Run may replace f.Getwd (for -C), so give each run its own Factory.
//
// Of the registered commands, only the one args name is built (see
// registered); a command line that names none builds them all.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) int {
	return run(ctx, f, args, registered(), nil)
}

// RunCommand is Run for `git uwf <command> args…` with newCmd's command as
// the only one: MainCommand's work, and in-process tests of a command that
// git-uwf runs as a program of its own.
func RunCommand(ctx context.Context, f *cmdutil.Factory, newCmd func(*cmdutil.Factory) *cli.Command, args []string) int {
	return runCommand(ctx, f, newCmd, args, nil)
}

// runCommand is RunCommand with run's watchSignals.
func runCommand(ctx context.Context, f *cmdutil.Factory, newCmd func(*cmdutil.Factory) *cli.Command, args []string, watchSignals func()) int {
	name := newCmd(f).Name
	return run(ctx, f, append([]string{"git-uwf", name}, args...), []command{{names: []string{name}, build: newCmd}}, watchSignals)
}

// run is Run with the top-level commands supplied, so tests can use their
// own. It builds the ones the command line needs (see needed), and calls
// watchSignals, when not nil, before it runs any command line but one that
// names no command or a quick one (see command.quick).
func run(ctx context.Context, f *cmdutil.Factory, args []string, cmds []command, watchSignals func()) int {
	if f.RunCommand == nil {
		f.RunCommand = func(ctx context.Context, cf *cmdutil.Factory, args []string) int {
			return run(ctx, cf, args, cmds, nil)
		}
	}
	flags := appFlags()
	build, named := needed(flags, cmds, args)
	if watchSignals != nil && named != nil && !named.quick {
		watchSignals()
	}
	app := newApp(f, flags, buildAll(f, build))
	args, path := reorder(app.Flags, app.Commands, args)
	err := app.RunContext(ctx, args)
	err = normalizeError(err, strings.Join(path, " "))
	cmdutil.PrintError(f.IO.ErrOut, err)
	return cmdutil.ExitCode(err)
}

// newApp returns the app that runs commands, prepared (see prepare), with
// flags (see appFlags) as its global flags.
func newApp(f *cmdutil.Factory, flags []cli.Flag, commands []*cli.Command) *cli.App {
	app := &cli.App{
		Name:            "git uwf",
		HelpName:        "git uwf",
		Usage:           "Run multi-role AI-agent workflows, with their state kept in git",
		Reader:          f.IO.In,
		Writer:          f.IO.Out,
		ErrWriter:       f.IO.ErrOut,
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelp:        true,
		HideHelpCommand: true,
		Flags:           flags,
		Commands:        commands,
		Before:          func(c *cli.Context) error { return applyDir(c, f) },
		Action:          rootAction,
		OnUsageError: func(c *cli.Context, err error, sub bool) error {
			return rootError{usageError("")(c, err, sub)}
		},
	}
	prepare(app.Commands, "")
	return app
}

// appFlags returns the app's flags: the global flags and -h/--help.
func appFlags() []cli.Flag {
	flags := flagsWithPlainNames(globalFlags())
	return append(flags, helpFlag(flags))
}

func globalFlags() []cli.Flag {
	return []cli.Flag{
		cmdutil.FormatFlag(),
		&cli.StringFlag{Name: flagDir, Usage: "run as if git uwf was started in `DIR`"},
		&cli.BoolFlag{Name: flagVerbose, Aliases: []string{"v"}, Usage: "print more detail on stderr", DisableDefaultText: true},
		&cli.BoolFlag{Name: flagVersion, Aliases: []string{"V"}, Usage: "print the version", DisableDefaultText: true},
	}
}

// helpFlag returns a fresh -h/--help flag, leaving out names flags already
// uses. urfave/cli's shared cli.HelpFlag is not used: it is written to on
// every parse, which races when apps run in parallel.
func helpFlag(flags []cli.Flag) cli.Flag {
	var names []string
	for _, n := range []string{"help", "h"} {
		if !slices.ContainsFunc(flags, func(f cli.Flag) bool { return slices.Contains(flagNames(f), n) }) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return boolFlag{&cli.BoolFlag{Name: names[0], Aliases: names[1:], Usage: "show help", DisableDefaultText: true}}
}

// prepare sets up every command in the tree below path for Run: flags
// with plain names (see flags.go), a help flag, usage errors as
// *cmdutil.FlagError, and an action for groups.
func prepare(cmds []*cli.Command, path string) {
	for _, cmd := range cmds {
		p := strings.TrimSpace(path + " " + cmd.Name)
		cmd.HideHelp = true
		cmd.HideHelpCommand = true
		h := helpFlag(cmd.Flags)
		cmd.Flags = flagsWithPlainNames(cmd.Flags)
		if h != nil && !cmd.SkipFlagParsing {
			cmd.Flags = append(cmd.Flags, h)
		}
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = usageError(p)
		}
		if len(cmd.Subcommands) > 0 && cmd.Action == nil {
			cmd.Action = groupAction(p)
			if cmd.ArgsUsage == "" && cmd.UsageText == "" {
				cmd.ArgsUsage = "<command> [arguments...]"
			}
		}
		prepare(cmd.Subcommands, p)
	}
}

// applyDir implements -C: it makes f.Getwd return DIR, made absolute against
// the current f.Getwd.
func applyDir(c *cli.Context, f *cmdutil.Factory) error {
	dir := c.String(flagDir)
	if !c.IsSet(flagDir) {
		return nil
	}
	if dir == "" {
		return &cmdutil.FlagError{Err: errors.New("-C: empty directory")}
	}
	if !filepath.IsAbs(dir) {
		wd, err := f.Getwd()
		if err != nil {
			return fmt.Errorf("-C %s: %w", dir, err)
		}
		dir = filepath.Join(wd, dir)
	}
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("-C: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("-C %s: not a directory", dir)
	}
	f.Getwd = func() (string, error) { return dir, nil }
	return nil
}

// rootAction runs for `git uwf` without a command: the version with
// --version, else the help.
func rootAction(c *cli.Context) error {
	if c.Bool(flagVersion) {
		_, err := fmt.Fprintf(c.App.Writer, "git-uwf version %s\n", Version())
		return err
	}
	if c.Args().Present() {
		return &cmdutil.FlagError{Err: fmt.Errorf("unknown command %q%s", c.Args().First(), cmdutil.DidYouMean(c.Args().First(), commandNames(c.App.Commands)))}
	}
	return cli.ShowAppHelp(c)
}

// groupAction runs for a command group without a verb: it shows the group's
// help, or reports an unknown verb.
func groupAction(path string) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.Args().Present() {
			return &cmdutil.FlagError{
				Err: fmt.Errorf("unknown command %q for %q%s", c.Args().First(), "git uwf "+path,
					cmdutil.DidYouMean(c.Args().First(), commandNames(c.Command.Subcommands))),
				Command: path,
			}
		}
		return cli.ShowSubcommandHelp(c)
	}
}

// usageError turns urfave/cli's flag-parsing error into a one-line
// *cmdutil.FlagError for the command at path.
func usageError(path string) cli.OnUsageErrorFunc {
	return func(c *cli.Context, err error, _ bool) error {
		var flags []cli.Flag
		if c != nil && c.Command != nil {
			flags = c.Command.Flags
		} else if c != nil && c.App != nil {
			flags = c.App.Flags
		}
		return &cmdutil.FlagError{Err: flagMessage(err, flags), Command: path}
	}
}

// flagMessage rewords the flag package's errors, which spell every flag
// with one dash, the way the user wrote it.
func flagMessage(err error, flags []cli.Flag) error {
	msg := err.Error()
	for _, p := range []struct{ from, to string }{
		{"flag provided but not defined: -", "unknown flag: "},
		{"flag needs an argument: -", "flag needs an argument: "},
	} {
		if name, ok := strings.CutPrefix(msg, p.from); ok {
			return errors.New(p.to + dashed(name))
		}
	}
	// invalid value "5" for flag -timeout: parse error
	if m := invalidValue().FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s: invalid value %s (%s)", dashed(m[2]), m[1], valueHint(m[2], flags))
	}
	return err
}

var invalidValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid value ("[^"]*") for flag -([^:]+): (.*)$`) })

// valueHint says what kind of value the named flag wants.
func valueHint(name string, flags []cli.Flag) string {
	for _, f := range flags {
		if !slices.Contains(flagNames(f), name) {
			continue
		}
		switch f.(type) {
		case durationFlag, *cli.DurationFlag:
			return "want a duration such as 90s or 30m"
		case intFlag, *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag:
			return "want a whole number"
		}
	}
	return "see -h for the expected form"
}

// dashed writes a flag name as -x or --name.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// rootError marks a usage error of the app itself, whose hint must not name
// the command the arguments went on to.
type rootError struct{ error }

func (e rootError) Unwrap() error { return e.error }

// normalizeError maps what urfave/cli returns to our errors: a usage error
// names its command (path, the command the arguments reached), and a
// missing Required flag is a usage error.
func normalizeError(err error, path string) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[rootError](err); ok {
		return err
	}
	if fe, ok := errors.AsType[*cmdutil.FlagError](err); ok {
		if fe.Command == "" && path != "" {
			return &cmdutil.FlagError{Err: err, Command: path}
		}
		return err
	}
	if strings.HasPrefix(err.Error(), "Required flag") {
		return &cmdutil.FlagError{Err: errors.New(strings.ToLower(err.Error()[:1]) + err.Error()[1:]), Command: path}
	}
	return err
}

// commandNames lists the names and aliases of the visible commands, for
// "did you mean".
func commandNames(cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c.Names()...)
		}
	}
	return out
}
