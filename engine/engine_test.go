package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
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

// The test binary doubles as the agent: with UWF_TEST_AGENT set it plays
// one step according to the mode and exits.
func TestMain(m *testing.M) {
	// The test binary also plays the agent supervisor (Engine.Supervisor).
	agentkit.SuperviseIfAsked()
	if mode := os.Getenv("UWF_TEST_AGENT"); mode != "" {
		os.Exit(testAgent(mode))
	}
	if id := os.Getenv("UWF_TEST_ENGINE"); id != "" {
		os.Exit(testEngine(id))
	}
	os.Exit(m.Run())
}

// scriptAgent replies with scripted texts: step i of the chain gets replies[i].
type scriptAgent struct {
	replies []scripted
	fixes   int
}

type scripted struct {
	Role   string `json:"role"`
	Output string `json:"output"`
}

func (a *scriptAgent) Name() string { return "script" }

func (a *scriptAgent) Run(ctx context.Context, s *agentkit.Session) (agentkit.Reply, error) {
	entries, err := s.Repo.Chain(ctx, s.Thread.Head.Commit)
	if err != nil {
		return agentkit.Reply{}, err
	}
	i := len(entries) - 1
	if i >= len(a.replies) {
		return agentkit.Reply{}, fmt.Errorf("script has no step %d", i)
	}
	r := a.replies[i]
	if r.Role != s.Role.Name {
		return agentkit.Reply{}, fmt.Errorf("script step %d expected role %q, got %q", i, r.Role, s.Role.Name)
	}
	text := strings.ReplaceAll(r.Output, "EDGE", s.EdgePrompt)
	return agentkit.Reply{Text: text, Detail: map[string]any{"stderr": "ok"}}, nil
}

func (a *scriptAgent) Correct(ctx context.Context, s *agentkit.Session, prev agentkit.Reply, correction string) (agentkit.Reply, error) {
	a.fixes++
	if os.Getenv("UWF_TEST_FIXABLE") == "1" {
		return agentkit.Reply{Text: "---\n$status: review_needed\nsummary: fixed on retry\n---\nbody"}, nil
	}
	return prev, nil
}

func testAgent(mode string) int {
	switch mode {
	case "exit3":
		fmt.Fprintln(os.Stderr, "model refused: quota exceeded")
		return 3
	case "nothing":
		return 0
	case "garbage":
		os.Stdout.Write([]byte("log line\n\xff\xfe not a step \x00\n"))
		return 0
	case "huge":
		chunk := strings.Repeat("x", 1<<20)
		for i := 0; i < 300; i++ {
			if _, err := os.Stdout.WriteString(chunk); err != nil {
				return 1
			}
		}
		return 0
	case "hang":
		time.Sleep(time.Hour)
		return 0
	case "stale":
		// A StepNode that names no prev although the thread has steps.
		ctx := context.Background()
		wd, _ := os.Getwd()
		repo, err := chain.Open(ctx, wd, chain.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		id, _ := chain.ParseThreadID(os.Args[len(os.Args)-2])
		th, _ := repo.Thread(ctx, id)
		out, _ := repo.Store.Put(th.Workflow.RoleSchemas["reviewer"], map[string]any{"$status": "approved"})
		schema, _ := repo.Schema("uwf.StepNode")
		ref, err := repo.Store.Put(schema, chain.StepNode{Start: th.StartAlias, Prev: nil, Role: "reviewer", Output: out.Alias, Agent: "stale", Cwd: wd})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(ref.Alias)
		return 0
	}
	if mode == "counted" {
		return countedAgentMain()
	}
	var replies []scripted
	if err := json.Unmarshal([]byte(os.Getenv("UWF_TEST_SCRIPT")), &replies); err != nil {
		fmt.Fprintln(os.Stderr, "bad script:", err)
		return 2
	}
	switch mode {
	case "slow":
		time.Sleep(500 * time.Millisecond)
	case "slowish":
		time.Sleep(time.Duration(rand.Intn(400)) * time.Millisecond)
	}
	return agentkit.RunMain(context.Background(), &scriptAgent{replies: replies}, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
}

const loopYAML = `name: review-loop
roles:
  developer:
    goal: Write the code.
    frontmatter:
      type: object
      properties:
        $status: {const: review_needed}
        summary: {type: string}
        branch: {type: string}
      required: [$status, summary]
  reviewer:
    goal: Review the code.
    frontmatter:
      type: object
      properties:
        $status: {enum: [approved, rejected, needs_input]}
        comments: {type: string}
        question: {type: string}
      required: [$status]
graph:
  $START:
    _: {role: developer, prompt: "Implement the task."}
  developer:
    review_needed: {role: reviewer, prompt: "Review branch {{branch}}: {{summary}}"}
  reviewer:
    rejected: {role: developer, prompt: "Fix: {{comments}}"}
    approved: {role: $END, prompt: "Done."}
    needs_input: {role: $SUSPEND, prompt: "The reviewer asks: {{question}}"}
`

type fixture struct {
	dir  string
	repo *chain.Repo
	id   chain.ThreadID
	eng  *engine.Engine
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := chaintest.InitRepo(t)
	repo := chaintest.Open(t, dir)
	info, _, err := repo.RegisterWorkflow(context.Background(), chaintest.Workflow(t, "review-loop", loopYAML))
	if err != nil {
		t.Fatal(err)
	}
	th, err := repo.StartThread(context.Background(), info, "add a flag", dir)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Repo: repo, Self: self, MaxOutput: 4 << 20}
	return &fixture{dir: dir, repo: repo, id: th.ID, eng: eng}
}

func agent(mode string, script []scripted, extraEnv ...string) *config.AgentSpec {
	self, _ := os.Executable()
	b, _ := json.Marshal(script)
	env := append([]string{"UWF_TEST_AGENT=" + mode, "UWF_TEST_SCRIPT=" + string(b)}, extraEnv...)
	return &config.AgentSpec{Name: "test-" + mode, Argv: []string{self, "-test.run=^$"}, Env: env, Timeout: 20 * time.Second}
}

var loopScript = []scripted{
	{"developer", "---\n$status: review_needed\nsummary: first try\nbranch: fix/42\n---\n# Work\n\nEDGE"},
	{"reviewer", "---\n$status: rejected\ncomments: add tests\n---\nEDGE"},
	{"developer", "---\n$status: review_needed\nsummary: tests added\nbranch: fix/42\n---\nEDGE"},
	{"reviewer", "---\n$status: approved\n---\nLGTM"},
}

func (fx *fixture) head(t *testing.T) plumbing {
	t.Helper()
	th, err := fx.repo.Thread(context.Background(), fx.id)
	if err != nil {
		t.Fatal(err)
	}
	return plumbing(th.Head.Commit.String())
}

type plumbing string

func TestLoopToCompletion(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	var statuses []string
	for i := 0; i < 4; i++ {
		res, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", loopScript)})
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		statuses = append(statuses, res.Output["$status"].(string))
		if i == 0 && (res.Status != chain.StatusIdle || *res.CurrentRole != "reviewer") {
			t.Fatalf("after step 1: %+v", res)
		}
		if i == 3 && res.Status != chain.StatusCompleted {
			t.Fatalf("after step 4: %+v", res)
		}
	}
	if got := strings.Join(statuses, ","); got != "review_needed,rejected,review_needed,approved" {
		t.Fatalf("statuses %s", got)
	}
	// Mustache variables from the developer's output reached the reviewer's
	// instruction (the script echoes UWF_EDGE_PROMPT into its body).
	th, _ := fx.repo.Thread(ctx, fx.id)
	steps, _ := fx.repo.Steps(ctx, th)
	if steps[2].EdgePrompt != "Review branch fix/42: first try" {
		t.Fatalf("edge prompt of step 2: %q", steps[2].EdgePrompt)
	}
	if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", loopScript)}); !errors.Is(err, engine.ErrFinished) {
		t.Fatalf("stepping a completed thread: %v", err)
	}
	chaintest.Fsck(t, fx.dir)
}

func TestSuspendAndResume(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	script := []scripted{
		{"developer", "---\n$status: review_needed\nsummary: s\nbranch: b\n---\nwork"},
		{"reviewer", "---\n$status: needs_input\nquestion: which API version?\n---\n?"},
		{"reviewer", "---\n$status: approved\n---\nEDGE"},
	}
	fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", script)})
	res, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", script)})
	if err != nil || res.Status != chain.StatusSuspended || *res.SuspendedRole != "reviewer" || *res.SuspendMessage != "The reviewer asks: which API version?" {
		t.Fatalf("suspend: %+v %v", res, err)
	}
	if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", script)}); !errors.Is(err, engine.ErrSuspended) {
		t.Fatalf("step on a suspended thread: %v", err)
	}
	res, err = fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", script), Resume: true, ResumePrompt: "use v2"})
	if err != nil || res.Status != chain.StatusCompleted {
		t.Fatalf("resume: %+v %v", res, err)
	}
	th, _ := fx.repo.Thread(ctx, fx.id)
	if th.Head.Step.EdgePrompt != "The reviewer asks: which API version?\n\nuse v2" {
		t.Fatalf("resume prompt: %q", th.Head.Step.EdgePrompt)
	}
	steps, _ := fx.repo.Steps(ctx, th)
	if len(steps) != 4 {
		t.Fatalf("chain after resume has %d entries", len(steps))
	}
	if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", script), Resume: true}); !errors.Is(err, engine.ErrFinished) {
		t.Fatalf("resume of a completed thread: %v", err)
	}
}

// TestBadAgents: every way an agent can fail leaves the head where it was,
// records the attempt, and says what happened.
func TestBadAgents(t *testing.T) {
	tests := []struct {
		name string
		spec *config.AgentSpec
		want string
		// phase is where the answer was rejected (the run, its
		// AdapterOutput, or the StepNode it names).
		phase   string
		prepare func(*fixture)
	}{
		{"exits non-zero", agent("exit3", nil), "quota exceeded", "agent", nil},
		{"prints nothing", agent("nothing", nil), "stdout is empty", "output", nil},
		{"prints garbage", agent("garbage", nil), "neither a step alias nor a JSON object", "output", nil},
		{"prints 300 MB", agent("huge", nil), "output too large", "agent", nil},
		{"never ends", func() *config.AgentSpec { s := agent("hang", nil); s.Timeout = time.Second; return s }(), "timed out", "agent", nil},
		{"invalid output every time", agent("script", []scripted{{"developer", "---\n$status: wrong\n---\nnope"}}), "no valid frontmatter after 3 attempt(s)", "agent", nil},
		{"no frontmatter", agent("script", []scripted{{"developer", "just prose"}}), "no valid frontmatter", "agent", nil},
		{"role mismatch", agent("script", []scripted{{"planner", "---\n$status: x\n---\n"}}), `expected role "planner"`, "agent", nil}, // the script agent refuses it
		{"step that does not continue the head", agent("stale", nil), "continues the start, but the thread head is", "verify", func(fx *fixture) {
			if _, err := fx.eng.Step(context.Background(), fx.id, engine.StepOptions{Agent: agent("script", loopScript)}); err != nil {
				panic(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fx := newFixture(t)
			if tt.prepare != nil {
				tt.prepare(fx)
			}
			before := fx.head(t)
			start := time.Now()
			_, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: tt.spec})
			var fe *engine.StepFailedError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want a StepFailedError containing %q, got %v", tt.want, err)
			}
			if time.Since(start) > 15*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
			if after := fx.head(t); after != before {
				t.Fatalf("head moved from %s to %s", before, after)
			}
			th, _ := fx.repo.Thread(ctx, fx.id)
			atts, err := fx.repo.Attempts(ctx, th, true)
			if err != nil || len(atts) != 1 || atts[0].Commit != fe.Attempt {
				t.Fatalf("attempt not recorded: %+v %v", atts, err)
			}
			if fe.Phase != tt.phase || atts[0].Node.Phase != tt.phase {
				t.Errorf("phase %q, recorded as %q; want %q", fe.Phase, atts[0].Node.Phase, tt.phase)
			}
			if st, _ := fx.repo.State(ctx, th); st.Status != chain.StatusFailed {
				t.Fatalf("status after failure: %s", st.Status)
			}
			chaintest.Fsck(t, fx.dir)
		})
	}
}

func TestRetryProvenance(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	res, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", []scripted{{"developer", "---\n$status: nope\n---\nx"}}, "UWF_TEST_FIXABLE=1")})
	if err != nil {
		t.Fatal(err)
	}
	th, _ := fx.repo.Thread(ctx, fx.id)
	if th.Head.Step.Extraction != "retry" || th.Head.Step.Attempts != 2 || res.Output["summary"] != "fixed on retry" {
		t.Fatalf("provenance: %+v", th.Head.Step)
	}
	// The rejected first reply is kept reachable in the step's detail.
	detail, err := fx.repo.Store.Expand(th.Head.Step.Detail)
	if err != nil {
		t.Fatal(err)
	}
	rejected, _ := detail.(map[string]any)["rejected"].([]any)
	if len(rejected) != 1 || !strings.Contains(fmt.Sprint(rejected[0]), "$status: nope") {
		t.Fatalf("rejected reply not kept: %v", detail)
	}
	chaintest.Fsck(t, fx.dir)
}

func TestConcurrentStepsOnOneThread(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, errs[i] = fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("slow", loopScript)})
		}(i)
	}
	wg.Wait()
	ok, busy := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, chain.ErrBusy):
			busy++
			if !strings.Contains(err.Error(), "retry") {
				t.Errorf("busy message is not retryable: %v", err)
			}
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 || busy != 3 {
		t.Fatalf("%d succeeded, %d busy; want 1 and 3", ok, busy)
	}
	th, _ := fx.repo.Thread(ctx, fx.id)
	if steps, _ := fx.repo.Steps(ctx, th); len(steps) != 2 {
		t.Fatalf("%d entries after concurrent steps", len(steps))
	}
}

func TestCancelledThreadRefusesSteps(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	th, _ := fx.repo.Thread(ctx, fx.id)
	if _, err := fx.repo.Cancel(ctx, th, "stop"); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", loopScript)}); !errors.Is(err, engine.ErrFinished) {
		t.Fatalf("step on a cancelled thread: %v", err)
	}
}
