package thread

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

func TestStepError(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{"worker · mock …\nworker · mock: failed in 1s\nerror: step failed: boom\n", "step failed: boom"},
		{"error: thread X is busy\n", "thread X is busy"},
		{"progress\nkilled\n", "killed"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := stepError(tt.stderr); got != tt.want {
			t.Errorf("stepError(%q) = %q, want %q", tt.stderr, got, tt.want)
		}
	}
}

// TestChildArgv: the flags of `thread step --background` and `--all` reach
// the child `thread step` processes (parsed by the real command's flags).
func TestChildArgv(t *testing.T) {
	tests := []struct {
		args           []string
		wantBackground []string
		wantAll        []string
	}{
		{[]string{"step", "T"},
			[]string{"thread", "step", "T", "--outcome-file", "O"}, nil},
		{[]string{"step", "--cwd", "sub dir", "--outside-worktree", "--rerun", "-q", "T"},
			[]string{"thread", "step", "T", "--outcome-file", "O", "--cwd", "sub dir", "--outside-worktree", "--rerun", "--quiet"},
			[]string{"--outside-worktree", "--rerun", "--quiet"}},
		{[]string{"step", "--until-done", "--max-steps", "7", "--agent", "mock x", "--timeout", "90s", "T"},
			[]string{"thread", "step", "T", "--outcome-file", "O", "--until-done", "--max-steps", "7", "--agent", "mock x", "--timeout", "1m30s"},
			[]string{"--agent", "mock x", "--timeout", "1m30s"}},
		{[]string{"-v", "step", "-c", "3", "T"},
			[]string{"--verbose", "thread", "step", "T", "--outcome-file", "O", "--count", "3"}, nil},
	}
	for _, tt := range tests {
		var opts StepOptions
		cmd := newCmdStep(cmdutil.NewFactory(nil))
		cmd.Action = func(c *cli.Context) error { opts = stepOptionsOf(c, nil); return nil }
		app := &cli.App{Flags: []cli.Flag{&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}}}, Commands: []*cli.Command{cmd}}
		if err := app.Run(append([]string{"git-uwf"}, tt.args...)); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if got := backgroundArgv(opts, "T", "O"); !slices.Equal(got, tt.wantBackground) {
			t.Errorf("%q: background argv %q, want %q", tt.args, got, tt.wantBackground)
		}
		if got := perThreadArgs(opts); !slices.Equal(got, tt.wantAll) {
			t.Errorf("%q: --all child flags %q, want %q", tt.args, got, tt.wantAll)
		}
	}
}
