package moderator

import (
	"fmt"
	"strings"
	"testing"
)

func mustLoad(t testing.TB, file string) *Workflow {
	t.Helper()
	w, err := Load(workflowsFS(), file)
	if err != nil {
		t.Fatalf("Load(%s): %v", file, err)
	}
	return w
}

func step(role string, out map[string]any) StepView {
	return StepView{Role: role, Output: out, Agent: "mock", EdgePrompt: "p"}
}

func TestRoute(t *testing.T) {
	type want struct {
		kind     DecisionKind
		from     string
		status   string
		role     string
		prompt   string
		location string
		err      string // substring; set → expect an error
	}
	tests := []struct {
		name  string
		file  string
		steps []StepView
		want  want
	}{
		// linear: status map with "_" everywhere.
		{"linear start", "linear.yaml", nil,
			want{kind: Next, from: Start, status: "_", role: "planner", prompt: "Plan the task."}},
		{"linear planner", "linear.yaml", []StepView{step("planner", map[string]any{"plan": "do <a&b>"})},
			want{kind: Next, from: "planner", status: "_", role: "worker", prompt: "Carry out this plan: do <a&b>"}},
		{"linear worker ends", "linear.yaml", []StepView{step("planner", map[string]any{"plan": "x"}), step("worker", map[string]any{"summary": "did it"})},
			want{kind: Finish, from: "worker", status: "_", role: End, prompt: "Done: did it"}},
		{"linear status ignored when absent", "linear.yaml", []StepView{step("planner", map[string]any{"plan": "x", "$status": 7})},
			want{kind: Next, from: "planner", status: "_", role: "worker", prompt: "Carry out this plan: x"}},
		{"linear unknown status", "linear.yaml", []StepView{step("planner", map[string]any{"plan": "x", "$status": "weird"})},
			want{err: `no transition for role "planner" with status "weird"`}},
		{"unknown role", "linear.yaml", []StepView{step("ghost", nil)},
			want{err: `no transitions for role "ghost"`}},
		{"nil output", "linear.yaml", []StepView{step("worker", nil)},
			want{kind: Finish, from: "worker", status: "_", role: End, prompt: "Done: "}},

		// review loop.
		{"review developer", "review-loop.yaml", []StepView{step("developer", map[string]any{"$status": "review_needed", "branch": "feat/x"})},
			want{kind: Next, from: "developer", status: "review_needed", role: "reviewer", prompt: "Review branch feat/x."}},
		{"review rejected", "review-loop.yaml", []StepView{
			step("developer", map[string]any{"$status": "review_needed", "branch": "b"}),
			step("reviewer", map[string]any{"$status": "rejected", "comments": "needs tests"})},
			want{kind: Next, from: "reviewer", status: "rejected", role: "developer", prompt: "The reviewer rejected your change: needs tests"}},
		{"review approved", "review-loop.yaml", []StepView{step("reviewer", map[string]any{"$status": "approved"})},
			want{kind: Finish, from: "reviewer", status: "approved", role: End, prompt: "Approved."}},
		{"review missing status", "review-loop.yaml", []StepView{step("reviewer", map[string]any{})},
			want{err: `no transition for role "reviewer" with status "_"`}},

		// suspend.
		{"suspend", "suspend.yaml", []StepView{step("planner", map[string]any{"$status": "insufficient_info", "reason": "which repo?"})},
			want{kind: Pause, from: "planner", status: "insufficient_info", role: "", prompt: "More information needed: which repo?"}},
		{"suspend ready", "suspend.yaml", []StepView{step("planner", map[string]any{"$status": "ready", "plan": "p"})},
			want{kind: Next, from: "planner", status: "ready", role: "worker", prompt: "Follow the plan: p"}},
		{"suspend without reason", "suspend.yaml", []StepView{step("planner", map[string]any{"$status": "insufficient_info"})},
			want{kind: Pause, from: "planner", status: "insufficient_info", prompt: "More information needed: "}},

		// mustache handoff: no HTML escaping, sections, location.
		{"handoff", "branch-handoff.yaml", []StepView{step("developer", map[string]any{
			"$status": "done", "branch": "fix/<a&b>", "repoPath": "/w/it's \"here\"", "notes": "x < y",
			"files": []any{map[string]any{"path": "a.go"}, map[string]any{"path": "b.go"}}})},
			want{kind: Next, from: "developer", status: "done", role: "tester",
				prompt:   `Test branch fix/<a&b> at /w/it's "here". Notes: x < y a.go b.go`,
				location: `/w/it's "here"`}},
		{"handoff no optional fields", "branch-handoff.yaml", []StepView{step("developer", map[string]any{"$status": "done", "branch": "b", "repoPath": "/r"})},
			want{kind: Next, from: "developer", status: "done", role: "tester", prompt: "Test branch b at /r.", location: "/r"}},
		{"handoff empty location", "branch-handoff.yaml", []StepView{step("developer", map[string]any{"$status": "done", "branch": "b"})},
			want{kind: Next, from: "developer", status: "done", role: "tester", prompt: "Test branch b at .", location: ""}},
		{"handoff numbers", "branch-handoff.yaml", []StepView{step("developer", map[string]any{"$status": "failed", "branch": float64(42)})},
			want{kind: Finish, from: "developer", status: "failed", role: End, prompt: "The developer failed on 42."}},

		// transitions form.
		{"solve start", "solve-issue.yaml", nil,
			want{kind: Next, from: Start, status: "_", role: "planner", prompt: "Analyze the issue described in the task and produce a detailed implementation plan."}},
		{"solve planner clarification", "solve-issue.yaml", []StepView{step("planner", map[string]any{"needsClarification": "which API?"})},
			want{kind: Pause, from: "planner", prompt: "The planner needs clarification: which API?"}},
		{"solve planner ready", "solve-issue.yaml", []StepView{step("planner", map[string]any{"repoPath": "/src/x", "plan": "p"})},
			want{kind: Next, from: "planner", role: "developer", prompt: "Implement the plan in /src/x.", location: "/src/x"}},
		{"solve reviewer rejects", "solve-issue.yaml", []StepView{
			step("planner", map[string]any{"repoPath": "/r", "plan": "p"}),
			step("developer", map[string]any{"summary": "s"}),
			step("reviewer", map[string]any{"approved": false, "comments": "fix it"})},
			want{kind: Next, from: "reviewer", role: "developer", prompt: "The reviewer rejected your implementation: fix it"}},
		{"solve reviewer approves", "solve-issue.yaml", []StepView{step("reviewer", map[string]any{"approved": true})},
			want{kind: Finish, from: "reviewer", role: End, prompt: "The review passed. Complete the workflow."}},
		{"solve reviewer approved missing", "solve-issue.yaml", []StepView{step("reviewer", map[string]any{})},
			want{kind: Finish, from: "reviewer", role: End, prompt: "The review passed. Complete the workflow."}},
		{"solve reviewer nil output", "solve-issue.yaml", []StepView{step("reviewer", nil)},
			want{kind: Finish, from: "reviewer", role: End, prompt: "The review passed. Complete the workflow."}},
		{"solve status reported", "solve-issue.yaml", []StepView{step("reviewer", map[string]any{"approved": true, "$status": "ok"})},
			want{kind: Finish, from: "reviewer", status: "ok", role: End, prompt: "The review passed. Complete the workflow."}},
		{"solve unknown role", "solve-issue.yaml", []StepView{step("tester", nil)},
			want{err: `no transitions for role "tester"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := mustLoad(t, tt.file)
			d, err := w.Route(RouteContext{Start: StartView{Workflow: w.Name, Prompt: "task"}, Steps: tt.steps})
			if tt.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want.err) {
					t.Fatalf("Route error = %v, want %q", err, tt.want.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Route: %v", err)
			}
			got := want{kind: d.Kind, from: d.From, status: d.Status, role: d.Role, prompt: d.Prompt, location: d.Location}
			if got != tt.want {
				t.Errorf("Route =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

// TestRouteConcurrent routes one workflow from many goroutines (run with
// -race): a loaded Workflow is read-only.
func TestRouteConcurrent(t *testing.T) {
	w := mustLoad(t, "solve-issue.yaml")
	ctx := RouteContext{Steps: []StepView{step("reviewer", map[string]any{"approved": false, "comments": "c"})}}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 50 {
				d, err := w.Route(ctx)
				if err == nil && d.Role != "developer" {
					err = fmt.Errorf("routed to %q", d.Role)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func TestRouteNoMatch(t *testing.T) {
	w, err := Parse(nil, "t.yaml", []byte(`name: t
conditions:
  approved: "$last('a').ok = true"
roles:
  a: {frontmatter: {type: object, properties: {ok: {type: boolean}}}}
graph:
  $START: [{role: a, prompt: "go"}]
  a: [{role: $END, condition: approved, prompt: "done"}]
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Route(RouteContext{Steps: []StepView{step("a", map[string]any{"ok": false})}})
	if err == nil || err.Error() != `no transition matched for role "a"` {
		t.Fatalf("Route error = %v", err)
	}
	d, err := w.Route(RouteContext{Steps: []StepView{step("a", map[string]any{"ok": true})}})
	if err != nil || d.Kind != Finish {
		t.Fatalf("Route = %+v, %v", d, err)
	}
}

func TestRouteEmptyPrompt(t *testing.T) {
	w, err := Parse(nil, "t.yaml", []byte(`name: t
roles:
  a: {frontmatter: {type: object, properties: {msg: {type: string}}}}
graph:
  $START: {_: {role: a, prompt: "go"}}
  a: {_: {role: $END, prompt: "  {{msg}}  "}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []map[string]any{nil, {}, {"msg": " \n "}} {
		_, err = w.Route(RouteContext{Steps: []StepView{step("a", out)}})
		want := `edge prompt for "$END" rendered empty (template "  {{msg}}  "): the previous output lacks the fields it uses`
		if err == nil || err.Error() != want {
			t.Errorf("Route(%v) error = %v, want %s", out, err, want)
		}
	}
	d, err := w.Route(RouteContext{Steps: []StepView{step("a", map[string]any{"msg": "bye"})}})
	if err != nil || d.Prompt != "  bye  " {
		t.Errorf("Route = %+v, %v", d, err)
	}
}

func TestRenderNoHTMLEscape(t *testing.T) {
	tests := []struct{ tpl, want string }{
		{"{{x}}", "<a&b>"},
		{"{{{x}}}", "<a&b>"},
		{"{{&x}}", "<a&b>"},
		{"{{#x}}[{{x}}]{{/x}}", "[<a&b>]"},
		{`{{q}}`, `"it's"`},
		{"{{missing}}!", "!"},
		{"{{n.deep}}", "v"},
		{"plain", "plain"},
	}
	data := map[string]any{"x": "<a&b>", "q": `"it's"`, "n": map[string]any{"deep": "v"}}
	for _, tt := range tests {
		got, err := renderTemplate(tt.tpl, data)
		if err != nil || got != tt.want {
			t.Errorf("renderTemplate(%q) = %q, %v; want %q", tt.tpl, got, err, tt.want)
		}
	}
	if _, err := renderTemplate("{{#open}}", data); err == nil {
		t.Error("renderTemplate of an unclosed section succeeded")
	}
}

func TestDecisionKindString(t *testing.T) {
	for k, want := range map[DecisionKind]string{Next: "next", Finish: "finish", Pause: "pause", 0: "DecisionKind(0)"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(k), got, want)
		}
	}
}

// Loading compiles every edge template that uses variables, and rendering
// the compiled one gives what compiling it afresh gives.
func TestEdgeTemplatesCompiledAtLoad(t *testing.T) {
	w := mustLoad(t, "solve-issue.yaml")
	data := map[string]any{"approved": false, "comments": "fix <this> & that", "$status": "x"}
	n := 0
	for _, edges := range w.Graph {
		for _, e := range edges {
			for _, tpl := range []string{e.Prompt, e.Location} {
				if !strings.Contains(tpl, "{{") {
					continue
				}
				n++
				if w.templates[tpl] == nil {
					t.Fatalf("template %q was not compiled at load", tpl)
				}
				got, gerr := w.render(tpl, data)
				want, werr := renderTemplate(tpl, data)
				if got != want || (gerr == nil) != (werr == nil) {
					t.Fatalf("template %q: compiled %q, %v; fresh %q, %v", tpl, got, gerr, want, werr)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("the fixture has no templated edge")
	}
}
