package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/engine"
)

// countedAgent answers with a reply chosen by UWF_TEST_REPLY and appends
// one line per invocation (run or correct) to the file UWF_TEST_COUNT, so
// a test can tell how often a paid agent would have run. It also records
// the edge prompt it was given in UWF_TEST_COUNT + ".edge".
type countedAgent struct{ counter string }

func (a countedAgent) Name() string { return "counted" }

func (a countedAgent) note(what string) {
	f, err := os.OpenFile(a.counter, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintln(f, what)
		f.Close()
	}
}

func (a countedAgent) Run(ctx context.Context, s *agentkit.Session) (agentkit.Reply, error) {
	a.note("run")
	_ = os.WriteFile(a.counter+".edge", []byte(s.EdgePrompt), 0o644)
	return agentkit.Reply{Text: countedReply(os.Getenv("UWF_TEST_REPLY"), s.Role.Name)}, nil
}

func (a countedAgent) Correct(ctx context.Context, s *agentkit.Session, prev agentkit.Reply, correction string) (agentkit.Reply, error) {
	a.note("correct")
	if os.Getenv("UWF_TEST_FIXABLE") == "1" {
		return agentkit.Reply{Text: countedReply("ok", s.Role.Name)}, nil
	}
	return prev, nil
}

// countedReply builds the reply texts the tests need; the big ones are
// made here because they do not fit an environment variable.
func countedReply(kind, role string) string {
	status := "review_needed\nsummary: ok"
	if role == "reviewer" {
		status = "approved"
	}
	switch kind {
	case "oversized":
		return "---\n$status: review_needed\nsummary: " + strings.Repeat("x", agentkit.MaxFrontmatterSize+10) + "\n---\nbody\n"
	case "alias-bomb":
		var b strings.Builder
		b.WriteString("---\n$status: review_needed\na0: [x, x, x, x, x, x, x, x, x, x]\n")
		for i := 1; i < 9; i++ {
			fmt.Fprintf(&b, "a%d: [", i)
			for j := 0; j < 10; j++ {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "*a%d", i-1)
			}
			b.WriteString("]\n")
		}
		// Anchors need names: rewrite "aN: [" as "aN: &aN [".
		text := b.String()
		for i := 0; i < 9; i++ {
			text = strings.Replace(text, fmt.Sprintf("a%d: [", i), fmt.Sprintf("a%d: &a%d [", i, i), 1)
		}
		return text + "summary: boom\n---\n"
	case "deep":
		return "---\n$status: review_needed\nsummary: " + strings.Repeat("[", 1200) + strings.Repeat("]", 1200) + "\n---\n"
	case "wrong-status":
		return "---\n$status: nope\nsummary: x\n---\n"
	case "nul":
		return "---\n$status: review_needed\nsummary: \"a\\0b\"\n---\n"
	}
	return "---\n$status: " + status + "\n---\nbody\n"
}

func countedAgentMain() int {
	return agentkit.RunMain(context.Background(), countedAgent{counter: os.Getenv("UWF_TEST_COUNT")}, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
}

func invocations(t *testing.T, counter string) []string {
	t.Helper()
	b, err := os.ReadFile(counter)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// TestNoPaidRetriesForLimits: a frontmatter a correction cannot fix (over
// the size limit, an alias bomb, nested too deeply) fails after one run of
// the agent, with the reason; a fixable problem is still corrected.
func TestNoPaidRetriesForLimits(t *testing.T) {
	tests := []struct {
		reply   string
		fixable bool
		want    string // error text; "" for success
		runs    string // the agent's invocations
	}{
		{"oversized", false, "larger than the limit", "run"},
		{"alias-bomb", false, "too many values", "run"},
		{"deep", false, "nested more than", "run"},
		{"wrong-status", false, "no valid frontmatter after 3 attempt(s)", "run correct correct"},
		{"wrong-status", true, "", "run correct"},
		{"nul", false, "NUL character", "run correct correct"},
		{"nul", true, "", "run correct"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s fixable=%v", tt.reply, tt.fixable), func(t *testing.T) {
			fx := newFixture(t)
			counter := filepath.Join(t.TempDir(), "count")
			env := []string{"UWF_TEST_REPLY=" + tt.reply, "UWF_TEST_COUNT=" + counter}
			if tt.fixable {
				env = append(env, "UWF_TEST_FIXABLE=1")
			}
			_, err := fx.eng.Step(context.Background(), fx.id, engine.StepOptions{Agent: agent("counted", nil, env...)})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("step: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("want an error containing %q, got %v", tt.want, err)
			}
			if got := strings.Join(invocations(t, counter), " "); got != tt.runs {
				t.Fatalf("agent invocations %q, want %q", got, tt.runs)
			}
			chaintest.Fsck(t, fx.dir)
		})
	}
}

// TestStepAfterUntravellableValue: an output stored before this fix (the
// way older versions wrote it) that holds a NUL byte or 200 kB of text
// feeds the next edge prompt; the next step still starts, and the agent
// gets the whole instruction.
func TestStepAfterUntravellableValue(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 200<<10/16)
	tests := []struct {
		name, summary string
	}{
		{"NUL byte", "before\x00after"},
		{"200 kB", big},
		{"NUL in 200 kB", big + "\x00" + big},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fx := newFixture(t)
			// Written directly, as an agent of an older version did (the
			// value is in a field the commit subject does not show).
			chaintest.Step(t, fx.repo, fx.id, "developer",
				map[string]any{"$status": "review_needed", "summary": "s", "branch": tt.summary}, "work")
			counter := filepath.Join(t.TempDir(), "count")
			// A prompt file left by a killed step of this thread.
			stale := filepath.Join(fx.repo.UwfDir(), "tmp", "edge-prompt-"+string(fx.id)+"-1.txt")
			if err := os.MkdirAll(filepath.Dir(stale), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(stale, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			res, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("counted", nil, "UWF_TEST_COUNT="+counter)})
			if err != nil {
				t.Fatalf("step after the stored value: %v", err)
			}
			if res.Role != "reviewer" || res.Status != chain.StatusCompleted {
				t.Fatalf("result %+v", res)
			}
			edge, err := os.ReadFile(counter + ".edge")
			if err != nil {
				t.Fatal(err)
			}
			want := "Review branch " + strings.ReplaceAll(tt.summary, "\x00", "") + ": s"
			if string(edge) != want {
				t.Fatalf("the agent got an edge prompt of %d bytes, want %d", len(edge), len(want))
			}
			// The temporary prompt file is gone after the step.
			left, _ := filepath.Glob(filepath.Join(fx.repo.UwfDir(), "tmp", "edge-prompt-*"))
			if len(left) > 0 {
				t.Fatalf("edge prompt files left behind: %v", left)
			}
			chaintest.Fsck(t, fx.dir)
		})
	}
}

// TestEdgePromptEnvironment: a script that reads only UWF_EDGE_PROMPT gets
// the prompt when it fits and a cleaned, cut copy when it does not; the
// file always holds the whole prompt.
func TestEdgePromptEnvironment(t *testing.T) {
	big := strings.Repeat("y", 100<<10)
	for _, tt := range []struct {
		name, summary string
		whole         bool
	}{
		{"fits", "short", true},
		{"too long", big, false},
		{"NUL", "a\x00b", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fx := newFixture(t)
			chaintest.Step(t, fx.repo, fx.id, "developer",
				map[string]any{"$status": "review_needed", "summary": "s", "branch": tt.summary}, "work")
			out := filepath.Join(t.TempDir(), "seen")
			spec := &config.AgentSpec{Name: "sh", Argv: []string{"sh", "-c",
				`printf %s "$UWF_EDGE_PROMPT" > "$0.env"; cat "$UWF_EDGE_PROMPT_FILE" > "$0.file"; exit 7`, out}}
			_, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: spec})
			var fe *engine.StepFailedError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "status 7") {
				t.Fatalf("want the script's exit status, got %v", err)
			}
			want := "Review branch " + tt.summary + ": s"
			file, _ := os.ReadFile(out + ".file")
			if string(file) != want {
				t.Fatalf("file holds %d bytes, want %d", len(file), len(want))
			}
			env, _ := os.ReadFile(out + ".env")
			if tt.whole != (string(env) == want) {
				t.Fatalf("env value (%d bytes) whole=%v, want whole=%v", len(env), string(env) == want, tt.whole)
			}
			if len(env) > agentkit.MaxEdgePromptEnv || strings.ContainsRune(string(env), 0) {
				t.Fatalf("env value of %d bytes", len(env))
			}
		})
	}
}
