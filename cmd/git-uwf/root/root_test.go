package root

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// got records what a test command's action saw.
type got struct {
	cmd     string
	args    []string
	prompt  string
	count   int
	dryRun  bool
	verbose bool
	format  cmdutil.Format
	wd      string
}

// testCommands returns a command tree like the real one: a group with
// verbs, aliases, value and bool flags, and a command with its own
// --format. Every action records what it saw into *g.
func testCommands(g *got, actionErr error) []command {
	record := func(f *cmdutil.Factory, name string) cli.ActionFunc {
		return func(c *cli.Context) error {
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			wd, err := f.Getwd()
			if err != nil {
				return err
			}
			*g = got{
				cmd: name, args: c.Args().Slice(), prompt: c.String("prompt"), count: c.Int("count"),
				dryRun: c.Bool("dry-run"), verbose: c.Bool("verbose"), format: format, wd: wd,
			}
			if actionErr != nil {
				return actionErr
			}
			return cmdutil.Print(f.IO, format, sampleOutput{ThreadID: "01J", StepCount: 3, Roles: []string{"dev"}}, nil)
		}
	}
	return []command{
		{names: []string{"thread", "t"}, build: func(f *cmdutil.Factory) *cli.Command {
			return &cli.Command{
				Name:    "thread",
				Aliases: []string{"t"},
				Usage:   "Work with threads",
				Subcommands: []*cli.Command{
					{
						Name:   "start",
						Usage:  "Start a thread",
						Action: record(f, "thread start"),
						Flags: []cli.Flag{
							&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}},
							&cli.IntFlag{Name: "count", Aliases: []string{"c"}},
							&cli.BoolFlag{Name: "dry-run"},
						},
					},
					{
						Name:    "list",
						Aliases: []string{"ls"},
						Usage:   "List threads",
						Action:  record(f, "thread list"),
						Flags:   []cli.Flag{&cli.BoolFlag{Name: "all"}},
					},
				},
			}
		}},
		{names: []string{"agent"}, build: func(f *cmdutil.Factory) *cli.Command {
			return &cli.Command{
				Name:  "agent",
				Usage: "Run agents",
				Subcommands: []*cli.Command{
					{
						Name:   "pipe",
						Action: record(f, "agent pipe"),
						Flags:  []cli.Flag{cmdutil.FormatFlag(), &cli.StringFlag{Name: "timeout"}},
					},
				},
			}
		}},
		{names: []string{"exec"}, build: func(f *cmdutil.Factory) *cli.Command {
			return &cli.Command{Name: "exec", SkipFlagParsing: true, Action: record(f, "exec")}
		}},
		{names: []string{"version"}, build: newCmdVersion},
		{names: []string{"man"}, build: func(f *cmdutil.Factory) *cli.Command {
			return &cli.Command{Name: "man", Hidden: true, Action: record(f, "man")}
		}},
	}
}

type sampleOutput struct {
	ThreadID  string   `json:"thread_id"`
	StepCount int      `json:"step_count"`
	Roles     []string `json:"roles"`
}

func TestReorderArgs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"flags after positional", `thread start review-loop -p x --format json`, `--format json thread start -p x review-loop`},
		{"global before command", `--format json thread list`, `--format json thread list`},
		{"global after command", `thread list --format json`, `--format json thread list`},
		{"global mixed in", `thread start a -v --dry-run b`, `-v thread start --dry-run a b`},
		{"after -- stays", `agent pipe -- claude -p`, `agent pipe -- claude -p`},
		{"after positional and --", `thread start a -p x -- -p b --format json`, `thread start -p x a -- -p b --format json`},
		{"value looks like a flag", `thread start name -p -x`, `thread start -p -x name`},
		{"value looks like a command", `thread start -p list name`, `thread start -p list name`},
		{"-C with value", `-C dir thread list`, `-C dir thread list`},
		{"-C after command", `thread list -C dir --all`, `-C dir thread list --all`},
		{"short flag", `thread start name -c 3`, `thread start -c 3 name`},
		{"inline value", `thread start name --count=3`, `thread start --count=3 name`},
		{"inline global", `thread start name --format=yaml`, `--format=yaml thread start name`},
		{"bool takes no value", `thread start name --dry-run other`, `thread start --dry-run name other`},
		{"relative order kept", `thread start a -c 1 b -p x c`, `thread start -c 1 -p x a b c`},
		{"aliases", `t ls x --all`, `t ls --all x`},
		{"unknown flag moved in front", `thread start name --bogus`, `thread start --bogus name`},
		{"unknown global flag", `--bogus thread list`, `--bogus thread list`},
		{"local flag shadows global", `agent pipe x --format yaml`, `agent pipe --format yaml x`},
		{"help drops positionals", `thread start name -h -- x`, `thread start -h`},
		{"help on the app moves to the command", `-h thread`, `thread --help`},
		{"help on the app alone", `-v -h`, `-v --help`},
		{"help on the app with a bad topic", `--help bogus`, `--help`},
		{"negative number and dash are positional", `thread start -1 - --dry-run`, `thread start --dry-run -1 -`},
		{"unknown verb is positional", `thread bogus --format json`, `--format json thread bogus`},
		{"no command", `-v`, `-v`},
		{"skip flag parsing", `-v exec a --format json -- -h`, `-v exec a --format json -- -h`},
		{"nothing", ``, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			f := cmdutil.NewFactory(ios)
			app := newApp(f, appFlags(), buildAll(f, testCommands(&got{}, nil)))
			in := append([]string{"git-uwf"}, strings.Fields(tt.in)...)
			want := append([]string{"git-uwf"}, strings.Fields(tt.want)...)
			if out := reorderArgs(app, in); !slices.Equal(out, want) {
				t.Errorf("reorderArgs(%q)\n got %q\nwant %q", tt.in, out, want)
			}
		})
	}
}

// runTest runs args through run with test commands and returns the exit
// code, stdout, stderr and what the action saw.
func runTest(t *testing.T, f *cmdutil.Factory, args string, actionErr error) (int, string, string, got) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	if f == nil {
		f = cmdutil.NewFactory(ios)
	} else {
		f.IO = ios
	}
	var g got
	code := run(t.Context(), f, append([]string{"git-uwf"}, strings.Fields(args)...), testCommands(&g, actionErr), nil)
	return code, out.String(), errOut.String(), g
}

func TestRunParsesFlagsAnywhere(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args string
		want got
	}{
		{`thread start review-loop -p x --format json -c 3`,
			got{cmd: "thread start", args: []string{"review-loop"}, prompt: "x", count: 3, format: cmdutil.FormatJSON}},
		{`thread start -p -x name --count=4 -v`,
			got{cmd: "thread start", args: []string{"name"}, prompt: "-x", count: 4, verbose: true, format: cmdutil.FormatText}},
		{`t start a --dry-run b`,
			got{cmd: "thread start", args: []string{"a", "b"}, dryRun: true, format: cmdutil.FormatText}},
		{`agent pipe -- claude -p --format json`,
			got{cmd: "agent pipe", args: []string{"claude", "-p", "--format", "json"}, format: cmdutil.FormatText}},
		{`--format yaml agent pipe x --format json`,
			got{cmd: "agent pipe", args: []string{"x"}, format: cmdutil.FormatJSON}},
		{`exec a --format json -h`,
			got{cmd: "exec", args: []string{"a", "--format", "json", "-h"}, format: cmdutil.FormatText}},
		{`--format yaml agent pipe x`,
			got{cmd: "agent pipe", args: []string{"x"}, format: cmdutil.FormatYAML}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			code, _, stderr, g := runTest(t, nil, tt.args, nil)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			g.wd = ""
			if fmt.Sprintf("%#v", g) != fmt.Sprintf("%#v", tt.want) {
				t.Errorf("action saw\n %#v\nwant\n %#v", g, tt.want)
			}
		})
	}
}

func TestRunUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args       string
		wantStderr string
	}{
		{`thread start x --bogus`, "error: unknown flag: --bogus; run 'git uwf thread start -h' for usage\n"},
		{`thread start -z`, "error: unknown flag: -z; run 'git uwf thread start -h' for usage\n"},
		{`--bogus thread list`, "error: unknown flag: --bogus; run 'git uwf -h' for usage\n"},
		{`thread start --count many`, "error: --count: invalid value \"many\" (want a whole number); run 'git uwf thread start -h' for usage\n"},
		{`thread start -p`, "error: flag needs an argument: -p; run 'git uwf thread start -h' for usage\n"},
		{`thread bogus`, "error: unknown command \"bogus\" for \"git uwf thread\"; run 'git uwf thread -h' for usage\n"},
		{`bogus`, "error: unknown command \"bogus\"; run 'git uwf -h' for usage\n"},
		{`--format xml thread list`, "error: --format: unknown format \"xml\": want text, json or yaml; run 'git uwf thread list -h' for usage\n"},
		{`version extra`, "error: version takes no arguments; run 'git uwf version -h' for usage\n"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr, _ := runTest(t, nil, tt.args, nil)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if stderr != tt.wantStderr {
				t.Errorf("stderr\n %q\nwant\n %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		wantCode   int
		wantStderr string
	}{
		{"failure", errors.New("read step x: not found"), 1, "error: read step x: not found\n"},
		{"silent", cmdutil.ErrSilent, 1, ""},
		{"usage from action", cmdutil.FlagErrorf("missing workflow"), 2, "error: missing workflow; run 'git uwf thread start -h' for usage\n"},
		{"locked", &cmdutil.ExitError{Code: cmdutil.ExitLocked, Err: errors.New("thread is locked")}, 75, "error: thread is locked\n"},
		{"cancelled", fmt.Errorf("run agent: %w", context.Canceled), 130, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr, _ := runTest(t, nil, "thread start x", tt.err)
			if code != tt.wantCode || stderr != tt.wantStderr {
				t.Errorf("got exit %d stderr %q, want %d %q", code, stderr, tt.wantCode, tt.wantStderr)
			}
		})
	}
}

func TestRunHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     string
		want     []string
		dontWant []string
	}{
		{``, []string{"git uwf", "thread", "agent", "version", "--format", "-C DIR"}, []string{" man "}},
		{`-h`, []string{"thread", "version"}, nil},
		{`--help`, []string{"thread", "version"}, nil},
		{`thread`, []string{"git uwf thread [command options] <command>", "start", "list"}, nil},
		{`thread -h`, []string{"start", "list"}, nil},
		{`thread start -h`, []string{"git uwf thread start", "--prompt", "--count"}, nil},
		{`thread start x y --help`, []string{"--prompt"}, nil},
		{`thread bogus -h`, []string{"start", "list"}, nil},
		{`-h thread`, []string{"start", "list"}, []string{"--format"}},
		{`-h bogus`, []string{"thread", "version"}, nil},
		{`-h thread start x`, []string{"--prompt"}, nil},
		{`t ls -h`, []string{"--all"}, []string{"--prompt"}},
		{`agent pipe --help`, []string{"--timeout"}, nil},
		{`version -h`, []string{"git uwf version"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr, g := runTest(t, nil, tt.args, nil)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if g.cmd != "" {
				t.Errorf("help ran the action of %q", g.cmd)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("help does not mention %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(stdout, w) {
					t.Errorf("help mentions %q:\n%s", w, stdout)
				}
			}
		})
	}
}

func TestRunVersion(t *testing.T) {
	t.Parallel()
	for _, args := range []string{"version", "--version", "-V"} {
		code, stdout, stderr, _ := runTest(t, nil, args, nil)
		if code != 0 || stderr != "" || stdout != "git-uwf version "+Version()+"\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	code, stdout, _, _ := runTest(t, nil, "version --format json", nil)
	if code != 0 || !strings.Contains(stdout, `"version": "`+Version()+`"`) {
		t.Errorf("version --format json: exit %d, stdout %q", code, stdout)
	}
}

// TestFormatsAgree checks that json and yaml output name the same fields,
// in the same order.
func TestFormatsAgree(t *testing.T) {
	t.Parallel()
	keys := func(format string) []string {
		code, stdout, stderr, _ := runTest(t, nil, "thread list --format "+format, nil)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", format, code, stderr)
		}
		var doc yaml.Node // yaml parses json too
		if err := yaml.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", format, err, stdout)
		}
		var ks []string
		m := doc.Content[0]
		for i := 0; i < len(m.Content); i += 2 {
			ks = append(ks, m.Content[i].Value)
		}
		return ks
	}
	j, y := keys("json"), keys("yaml")
	if want := []string{"thread_id", "step_count", "roles"}; !slices.Equal(j, want) {
		t.Errorf("json keys %q, want %q", j, want)
	}
	if !slices.Equal(j, y) {
		t.Errorf("json keys %q, yaml keys %q", j, y)
	}
}

func TestRunDir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	sub := filepath.Join(base, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     string
		wantCode int
		wantWd   string
	}{
		{"no -C", "thread list", 0, base},
		{"absolute", "-C " + sub + " thread list", 0, sub},
		{"relative", "-C sub thread list", 0, sub},
		{"after the command", "thread list -C sub", 0, sub},
		{"dot-dot", "-C sub/.. thread list", 0, base},
		{"missing", "-C nope thread list", 1, ""},
		{"not a directory", "-C file thread list", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &cmdutil.Factory{Getwd: func() (string, error) { return base, nil }}
			code, _, stderr, g := runTest(t, f, tt.args, nil)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr)
			}
			if code != 0 {
				if !strings.HasPrefix(stderr, "error: -C") {
					t.Errorf("stderr %q, want an error about -C", stderr)
				}
				return
			}
			if g.wd != tt.wantWd {
				t.Errorf("action's f.Getwd = %q, want %q", g.wd, tt.wantWd)
			}
			if wd, _ := f.Getwd(); wd != tt.wantWd {
				t.Errorf("f.Getwd after Run = %q, want %q", wd, tt.wantWd)
			}
		})
	}
}

// TestRealCommands runs the registered commands through Run.
func TestRealCommands(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	if code := Run(t.Context(), cmdutil.NewFactory(ios), []string{"git-uwf"}); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out.String(), "version") {
		t.Errorf("help does not list the commands:\n%s", out)
	}
}

// TestRegisteredNames checks that each registered command is listed under
// the names it answers to, which needed finds it by before it is built.
func TestRegisteredNames(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := cmdutil.NewFactory(ios)
	seen := map[string]bool{}
	for _, c := range registered() {
		cmd := c.build(f)
		if !slices.Equal(c.names, cmd.Names()) {
			t.Errorf("command %q is registered as %q, want its names %q", cmd.Name, c.names, cmd.Names())
		}
		for _, n := range c.names {
			if seen[n] {
				t.Errorf("two commands are called %q", n)
			}
			seen[n] = true
		}
	}
}

// counted returns cmds with each build counted in built, by name.
func counted(cmds []command, built map[string]int) []command {
	out := make([]command, len(cmds))
	for i, c := range cmds {
		build := c.build
		c.build = func(f *cmdutil.Factory) *cli.Command {
			built[c.names[0]]++
			return build(f)
		}
		out[i] = c
	}
	return out
}

// TestRunBuildsWhatItNeeds runs command lines of the registered commands
// twice, once building only what each needs and once building every
// command first (as every run did before), and checks that both answer
// the same, and that the first builds only the command its arguments name.
func TestRunBuildsWhatItNeeds(t *testing.T) {
	all := func(registered []command) []string {
		var names []string
		for _, c := range registered {
			names = append(names, c.names[0])
		}
		return names
	}(registered())
	tests := []struct {
		args  string
		built []string // nil: all of them
		// signals: whether the run starts signal handling (a quick
		// command, or none named, does not)
		signals bool
	}{
		{"version", []string{"version"}, false},
		{"version --format json", []string{"version"}, false},
		{"-v --format=yaml version", []string{"version"}, false},
		{"version extra", []string{"version"}, false},
		{"version --bogus", []string{"version"}, false},
		{"--bogus version", []string{"version"}, false},
		{"-C . version", []string{"version"}, false},
		{"version -h", []string{"version"}, false},
		{"-h version", []string{"version"}, false},
		{"thread list --help", []string{"thread"}, true},
		{"thread list -h --format json", []string{"thread"}, true},
		{"thread -h", []string{"thread"}, true},
		{"thread", []string{"thread"}, true},
		{"thread bogus", []string{"thread"}, true},
		{"-h thread list x", []string{"thread"}, true},
		{"workflow ls --help", []string{"workflow"}, true},
		{"completion bash", []string{"completion"}, false},
		{"completion tcsh", []string{"completion"}, false},
		{"serve --help", []string{"serve"}, true},
		{"", nil, false},
		{"-h", nil, false},
		{"-v --help", nil, false},
		{"-V", nil, false},
		{"bogus", nil, false},
		{"versoin", nil, false},
		{"-h bogus", nil, false},
		{"help thread", nil, false},
		{"-- version", nil, false},
		{"- version", nil, false},
		{"__complete th", nil, true},
		{"__complete thread ''", nil, true},
		{"__complete -C . thread l", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			args := append([]string{"git-uwf"}, strings.Fields(tt.args)...)
			watched := 0
			runOnce := func(cmds []command) (int, string, string) {
				ios, _, out, errOut := iostreams.Test()
				code := run(t.Context(), cmdutil.NewFactory(ios), args, cmds, func() { watched++ })
				return code, out.String(), errOut.String()
			}
			built := map[string]int{}
			code, out, errOut := runOnce(counted(registered(), built))
			if got := watched > 0; got != tt.signals || watched > 1 {
				t.Errorf("signal handling started %d times, want it started: %v", watched, tt.signals)
			}

			eager := registered()
			for i := range eager {
				eager[i].wholeTree = true
			}
			wantCode, wantOut, wantErrOut := runOnce(eager)
			if code != wantCode || out != wantOut || errOut != wantErrOut {
				t.Errorf("building what the run needs: exit %d\n%s%s\nbuilding every command: exit %d\n%s%s", code, out, errOut, wantCode, wantOut, wantErrOut)
			}

			want := tt.built
			if want == nil {
				want = all
			}
			var got []string
			for name, n := range built {
				got = append(got, name)
				if n != 1 {
					t.Errorf("%s built %d times", name, n)
				}
			}
			slices.Sort(got)
			want = slices.Sorted(slices.Values(want))
			if !slices.Equal(got, want) {
				t.Errorf("built %q, want %q", got, want)
			}
		})
	}
}

// TestPlainFlagNames checks that the plain names Run gives the flags of
// the whole tree are the names urfave/cli's own flag types report.
func TestPlainFlagNames(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	app := App(cmdutil.NewFactory(ios))
	check := func(path string, flags []cli.Flag) {
		for _, f := range flags {
			var own cli.Flag
			switch f := f.(type) {
			case boolFlag:
				own = f.BoolFlag
			case stringFlag:
				own = f.StringFlag
			case intFlag:
				own = f.IntFlag
			case durationFlag:
				own = f.DurationFlag
			case *cli.BoolFlag, *cli.StringFlag, *cli.IntFlag, *cli.DurationFlag:
				t.Errorf("%s: flag %s has urfave/cli's names", path, f.Names()[0])
				continue
			default:
				continue
			}
			if !slices.Equal(f.Names(), own.Names()) {
				t.Errorf("%s: flag names %q, urfave/cli's %q", path, f.Names(), own.Names())
			}
		}
	}
	check("git uwf", app.Flags)
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			check(path+" "+c.Name, c.Flags)
			walk(path+" "+c.Name, c.Subcommands)
		}
	}
	walk("git uwf", app.Commands)
}
