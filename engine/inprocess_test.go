package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/engine"
)

const developerScript = `steps:
  - role: developer
    output: "---\n$status: review_needed\nsummary: scripted\nbranch: fix/1\n---\nDone."
`

// builtinSpec is a built-in agent's command line as the configuration
// gives it.
func builtinSpec(timeout time.Duration, argv ...string) *config.AgentSpec {
	return &config.AgentSpec{Name: "builtin", Argv: argv, Timeout: timeout}
}

// inProcessFixture is a fixture whose engine cannot spawn this program (its
// Self does not exist), so that a built-in agent that works ran in-process.
func inProcessFixture(t *testing.T) (*fixture, string) {
	t.Helper()
	fx := newFixture(t)
	fx.eng.Self = filepath.Join(t.TempDir(), "no-such-git-uwf")
	script := filepath.Join(fx.dir, "mock.yaml")
	if err := os.WriteFile(script, []byte(developerScript), 0o644); err != nil {
		t.Fatal(err)
	}
	return fx, script
}

// TestBuiltinInProcess: the built-in agents are called inside the engine's
// process, whichever way the command line names this program, and are
// spawned with SpawnBuiltins.
func TestBuiltinInProcess(t *testing.T) {
	for _, prefix := range [][]string{{"git-uwf"}, {"git", "uwf"}} {
		t.Run(strings.Join(prefix, " "), func(t *testing.T) {
			fx, script := inProcessFixture(t)
			argv := append(prefix, "agent", "mock", "--script", script)
			res, err := fx.eng.Step(context.Background(), fx.id, engine.StepOptions{Agent: builtinSpec(0, argv...)})
			if err != nil {
				t.Fatalf("step: %v", err)
			}
			if res.Role != "developer" || res.Agent != "mock" || res.Output["summary"] != "scripted" || res.Status != chain.StatusIdle {
				t.Fatalf("result %+v", res)
			}
			chaintest.Fsck(t, fx.dir)
		})
	}
	t.Run("spawned", func(t *testing.T) {
		fx, script := inProcessFixture(t)
		fx.eng.SpawnBuiltins = true
		before := fx.head(t)
		_, err := fx.eng.Step(context.Background(), fx.id, engine.StepOptions{Agent: builtinSpec(0, "git-uwf", "agent", "mock", "--script", script)})
		var fe *engine.StepFailedError
		if !errors.As(err, &fe) || fe.Phase != "agent" || !strings.Contains(err.Error(), "no-such-git-uwf") {
			t.Fatalf("want the spawn of the missing executable to fail, got %v", err)
		}
		if fx.head(t) != before {
			t.Fatal("head moved")
		}
	})
}

// TestBuiltinSpawnedWhenNotPlain: command lines the built-in parser does
// not take on (the human agent, help, unknown flags, global flags, stray
// arguments) are spawned, so the command itself handles them.
func TestBuiltinSpawnedWhenNotPlain(t *testing.T) {
	tests := [][]string{
		{"git-uwf", "agent", "human"},
		{"git-uwf", "agent", "mock", "--colour"},
		{"git-uwf", "agent", "mock", "--script"},
		{"git-uwf", "agent", "mock", "-h"},
		{"git-uwf", "agent", "mock", "extra"},
		{"git-uwf", "-C", "sub", "agent", "mock"},
		{"git-uwf", "agent", "pipe", "--help"},
		{"git-uwf", "agent", "pipe", "--colour", "sh"},
		{"git-uwf", "agent", "llm", "--base-url", "http://127.0.0.1:1"},
		{"git-uwf", "agent", "llm", "--timeout", "soon"},
	}
	for _, argv := range tests {
		t.Run(strings.Join(argv[1:], " "), func(t *testing.T) {
			fx, _ := inProcessFixture(t)
			_, err := fx.eng.Step(context.Background(), fx.id, engine.StepOptions{Agent: builtinSpec(0, argv...)})
			var fe *engine.StepFailedError
			if !errors.As(err, &fe) || fe.Phase != "agent" || !strings.Contains(err.Error(), "no such file") {
				t.Fatalf("want a spawn of the missing executable, got %v", err)
			}
		})
	}
}

// TestBuiltinInProcessFailures: a built-in agent called in-process fails
// the way the spawned command does: the head stays, and the attempt keeps
// the exit status, the stderr and the AdapterOutput line the command
// prints.
func TestBuiltinInProcessFailures(t *testing.T) {
	tests := []struct {
		name    string
		argv    []string
		timeout time.Duration
		cancel  bool
		want    string
		is      error
		stderr  string
		stdout  string
	}{
		{name: "agent fails", argv: []string{"git-uwf", "agent", "pipe", "--", "sh", "-c", "cat >/dev/null; echo quota exceeded >&2; exit 3"},
			want: "exited with status 1: error: agent pipe:sh: ", stderr: "quota exceeded", stdout: `"error":"agent pipe:sh:`},
		{name: "usage error", argv: []string{"git-uwf", "agent", "pipe", "--preset", "nope"},
			want: `exited with status 2: error: unknown pipe preset "nope"`, stderr: "run 'git uwf agent pipe -h' for usage"},
		{name: "no script", argv: []string{"git-uwf", "agent", "mock"}, want: "exited with status 1: error: the mock agent needs a script"},
		{name: "never ends", argv: []string{"git-uwf", "agent", "pipe", "--", "sleep", "30"}, timeout: 200 * time.Millisecond,
			want: "timed out after 200ms", is: context.DeadlineExceeded},
		{name: "interrupted", argv: []string{"git-uwf", "agent", "pipe", "--", "sleep", "30"}, cancel: true,
			want: "stopped: context canceled", is: context.Canceled},
		{name: "invalid output", argv: []string{"git-uwf", "agent", "pipe", "--", "sh", "-c", "cat >/dev/null; echo '---'; echo '$status: wrong'; echo '---'"},
			want: "no valid frontmatter", stdout: `"nodes":["`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fx, _ := inProcessFixture(t)
			before := fx.head(t)
			if tt.cancel {
				time.AfterFunc(200*time.Millisecond, cancel)
			}
			_, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: builtinSpec(tt.timeout, tt.argv...)})
			var fe *engine.StepFailedError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want a StepFailedError containing %q, got %v", tt.want, err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
			if after := fx.head(t); after != before {
				t.Fatalf("head moved from %s to %s", before, after)
			}
			th, _ := fx.repo.Thread(context.Background(), fx.id)
			atts, err := fx.repo.Attempts(context.Background(), th, true)
			if err != nil || len(atts) != 1 || atts[0].Commit != fe.Attempt {
				t.Fatalf("attempt not recorded: %+v %v", atts, err)
			}
			for stream, want := range map[string]string{"stderr": tt.stderr, "stdout": tt.stdout} {
				if want == "" {
					continue
				}
				ref := atts[0].Node.Stderr
				if stream == "stdout" {
					ref = atts[0].Node.Stdout
				}
				got, err := fx.repo.Store.Expand(ref)
				if err != nil || !strings.Contains(strings.ReplaceAll(toString(got), `\"`, `"`), want) {
					t.Errorf("attempt %s %v (%v), want %q", stream, got, err, want)
				}
			}
			chaintest.Fsck(t, fx.dir)
		})
	}
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}
