package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/engine"
)

// fakeBuiltins plays `git-uwf agent test <mode>` in-process, the way the
// test binary plays it when spawned (testAgent), and remembers the calls.
type fakeBuiltins struct {
	mu    sync.Mutex
	calls []engine.AgentCall
	asked [][]string
}

func (b *fakeBuiltins) Agent(args []string) engine.InProcessAgent {
	b.mu.Lock()
	b.asked = append(b.asked, args)
	b.mu.Unlock()
	if len(args) < 3 || args[0] != "agent" || args[1] != "test" {
		return nil
	}
	mode := args[2]
	return func(ctx context.Context, call engine.AgentCall) int {
		b.mu.Lock()
		b.calls = append(b.calls, call)
		b.mu.Unlock()
		getenv := func(k string) string {
			for i := len(call.Env) - 1; i >= 0; i-- {
				if key, v, ok := strings.Cut(call.Env[i], "="); ok && key == k {
					return v
				}
			}
			return ""
		}
		switch mode {
		case "exit3":
			fmt.Fprintln(call.Stderr, "model refused: quota exceeded")
			return 3
		case "huge":
			chunk := strings.Repeat("x", 1<<20)
			for i := 0; i < 300 && ctx.Err() == nil; i++ {
				fmt.Fprint(call.Stdout, chunk)
			}
			return 1
		case "hang":
			<-ctx.Done()
			return 1
		case "panic":
			panic("agent bug")
		}
		var replies []scripted
		if err := json.Unmarshal([]byte(getenv("UWF_TEST_SCRIPT")), &replies); err != nil {
			fmt.Fprintln(call.Stderr, "bad script:", err)
			return 2
		}
		req, err := agentkit.RequestFromEnv(call.Args, getenv)
		if err != nil {
			fmt.Fprintln(call.Stderr, err)
			return 1
		}
		req.Cwd = call.Dir
		s, err := agentkit.NewSession(ctx, call.Repo, req, agentkit.Options{})
		if err != nil {
			fmt.Fprintln(call.Stderr, err)
			return 1
		}
		out, err := agentkit.Execute(ctx, s, &scriptAgent{replies: replies}, agentkit.Options{})
		if err != nil {
			fmt.Fprintln(call.Stderr, err)
			(&agentkit.AdapterOutput{Error: err.Error()}).Print(call.Stdout)
			return 1
		}
		out.Print(call.Stdout)
		return 0
	}
}

// builtin is agent() as a built-in command line the engine may run
// in-process.
func builtin(mode string, script []scripted) *config.AgentSpec {
	spec := agent(mode, script)
	spec.Argv = []string{"git-uwf", "agent", "test", mode}
	return spec
}

// stepNodeOf returns the head's StepNode without its clock readings.
func stepNodeOf(t *testing.T, fx *fixture) chain.StepNode {
	t.Helper()
	th, err := fx.repo.Thread(context.Background(), fx.id)
	if err != nil || th.Head.Step == nil {
		t.Fatalf("head is no step: %v", err)
	}
	s := *th.Head.Step
	s.StartedAtMs, s.CompletedAtMs = 0, 0
	return s
}

// treeBesideStepNode lists the head commit's tree without the StepNode
// blob, which differs only by the clock.
func treeBesideStepNode(t *testing.T, fx *fixture) []string {
	t.Helper()
	head := string(fx.head(t))
	node := strings.TrimSpace(chaintest.Git(t, fx.dir, "rev-parse", head+":node"))
	var out []string
	for _, line := range strings.Split(chaintest.Git(t, fx.dir, "ls-tree", "-r", head), "\n") {
		if line != "" && !strings.Contains(line, node) {
			out = append(out, line)
		}
	}
	return out
}

// TestInProcessMatchesSpawned: the same agent, run in-process or spawned,
// produces the same step: the same nodes and the same tree, up to the
// StepNode's timestamps.
func TestInProcessMatchesSpawned(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	b := &fakeBuiltins{}
	fx.eng.InProcess = b
	start := fx.head(t)

	if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", loopScript)}); err != nil {
		t.Fatalf("spawned step: %v", err)
	}
	if len(b.calls) != 0 {
		t.Fatalf("a spawned command line ran in-process: %v", b.calls)
	}
	spawnedNode, spawnedTree := stepNodeOf(t, fx), treeBesideStepNode(t, fx)

	chaintest.Git(t, fx.dir, "update-ref", fx.id.Ref(), string(start))
	res, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: builtin("script", loopScript)})
	if err != nil {
		t.Fatalf("in-process step: %v", err)
	}
	if len(b.calls) != 1 {
		t.Fatalf("%d in-process calls, want 1", len(b.calls))
	}
	if res.Role != "developer" || res.Status != chain.StatusIdle {
		t.Fatalf("result %+v", res)
	}
	if got := stepNodeOf(t, fx); fmt.Sprint(got) != fmt.Sprint(spawnedNode) {
		t.Errorf("StepNode in-process %+v\nspawned %+v", got, spawnedNode)
	}
	if got := treeBesideStepNode(t, fx); !slices.Equal(got, spawnedTree) {
		t.Errorf("tree in-process:\n%s\nspawned:\n%s", strings.Join(got, "\n"), strings.Join(spawnedTree, "\n"))
	}

	// The call carried what a spawned agent's process gets.
	call := b.calls[0]
	if call.Repo != fx.repo || call.Dir != fx.dir {
		t.Errorf("call repo %p dir %q, want %p %q", call.Repo, call.Dir, fx.repo, fx.dir)
	}
	if n := len(call.Args); n < 2 || call.Args[n-2] != string(fx.id) || call.Args[n-1] != "developer" || call.Args[0] != "agent" {
		t.Errorf("args %q", call.Args)
	}
	for _, want := range []string{agentkit.EnvThread + "=" + string(fx.id), agentkit.EnvRole + "=developer",
		agentkit.EnvHead + "=" + string(start), "GIT_DIR=" + fx.repo.Info.GitDir, "UWF_TEST_AGENT=script",
		agentkit.EnvEdgePrompt + "=Implement the task."} {
		if !slices.Contains(call.Env, want) {
			t.Errorf("environment lacks %q", want)
		}
	}
	chaintest.Fsck(t, fx.dir)
}

// TestInProcessFailures: an in-process agent fails the way a spawned one
// does: the head stays, the attempt is recorded with its output.
func TestInProcessFailures(t *testing.T) {
	tests := []struct {
		name    string
		spec    *config.AgentSpec
		cancel  bool
		want    string
		is      error
		stderr  string
		maxTime time.Duration
	}{
		{name: "exits non-zero", spec: builtin("exit3", nil), want: "exited with status 3: model refused", stderr: "quota exceeded"},
		{name: "prints 300 MB", spec: builtin("huge", nil), want: "output too large", is: agentkit.ErrOutputTooLarge},
		{name: "never ends", spec: func() *config.AgentSpec { s := builtin("hang", nil); s.Timeout = 200 * time.Millisecond; return s }(),
			want: "timed out after 200ms", is: context.DeadlineExceeded},
		{name: "interrupted", spec: builtin("hang", nil), cancel: true, want: "stopped: context canceled", is: context.Canceled},
		{name: "panics", spec: builtin("panic", nil), want: "exited with status 2", stderr: "panic: agent bug"},
		{name: "invalid output", spec: builtin("script", []scripted{{"developer", "---\n$status: wrong\n---\nnope"}}), want: "no valid frontmatter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fx := newFixture(t)
			fx.eng.InProcess = &fakeBuiltins{}
			before := fx.head(t)
			if tt.cancel {
				time.AfterFunc(100*time.Millisecond, cancel)
			}
			start := time.Now()
			_, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: tt.spec})
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
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
			if tt.stderr != "" {
				stderr, err := fx.repo.Store.Expand(atts[0].Node.Stderr)
				if err != nil || !strings.Contains(fmt.Sprint(stderr), tt.stderr) {
					t.Errorf("attempt stderr %v (%v), want %q", stderr, err, tt.stderr)
				}
			}
			if tt.is == agentkit.ErrOutputTooLarge {
				stdout, err := fx.repo.Store.Expand(atts[0].Node.Stdout)
				if n := len(fmt.Sprint(stdout)); err != nil || int64(n) > fx.eng.MaxOutput+100 {
					t.Errorf("attempt keeps %d bytes of stdout (%v), cap %d", n, err, fx.eng.MaxOutput)
				}
			}
			chaintest.Fsck(t, fx.dir)
		})
	}
}

// TestInProcessOnlyForBuiltins: only "git-uwf …" and "git uwf …" command
// lines are offered to InProcess, with the program name taken off.
func TestInProcessOnlyForBuiltins(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	b := &fakeBuiltins{}
	fx.eng.InProcess = b
	spec := builtin("script", loopScript)
	spec.Argv = []string{"git", "uwf", "agent", "test", "script"}
	if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: spec}); err != nil {
		t.Fatalf("git uwf …: %v", err)
	}
	if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", loopScript)}); err != nil {
		t.Fatalf("external command: %v", err)
	}
	if len(b.asked) != 1 || !slices.Equal(b.asked[0], []string{"agent", "test", "script"}) || len(b.calls) != 1 {
		t.Fatalf("asked %q, %d calls", b.asked, len(b.calls))
	}
}
