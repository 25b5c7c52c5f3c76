package moderator

import (
	"strings"
	"testing"
)

func TestTranslateExpr(t *testing.T) {
	tests := []struct{ in, want string }{
		{"steps[-1].output.approved = false", "steps[-1].output.approved == false"},
		{"$last('reviewer').approved = false", "last('reviewer').approved == false"},
		{"$first('planner').status = 'ready'", "first('planner').status == 'ready'"},
		{"$exists(steps[-1].output.needsClarification)", "exists(steps[-1].output.needsClarification)"},
		{"$exists($last('reviewer'))", "exists(last('reviewer'))"},
		{"a == b and c != d or e <= f or g >= h", "a == b and c != d or e <= f or g >= h"},
		{"a = 'x = y' and b = \"p=q\"", "a == 'x = y' and b == \"p=q\""},
		{`a = 'it\'s = so'`, `a == 'it\'s = so'`},
		{"a = `raw = x`", "a == `raw = x`"},
		{"$last ('r')", "last ('r')"},
		{"x.$status = 'done'", "x.$status == 'done'"},
		{"'$last(' = a", "'$last(' == a"},
		{"a=b", "a==b"},
		{"'unterminated = x", "'unterminated = x"},
	}
	for _, tt := range tests {
		if got := translateExpr(tt.in); got != tt.want {
			t.Errorf("translateExpr(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestConditions(t *testing.T) {
	ctx := RouteContext{
		Start: StartView{Workflow: "solve-issue", Prompt: "fix bug 7"},
		Steps: []StepView{
			{Role: "planner", Output: map[string]any{"status": "ready", "plan": "p1", "n": float64(3)}, Agent: "claude", EdgePrompt: "Plan."},
			{Role: "developer", Output: map[string]any{"summary": "s", "files": []any{"a.go", "b.go"}}},
			{Role: "reviewer", Output: map[string]any{"approved": false, "comments": "no"}},
			{Role: "planner", Output: map[string]any{"status": "again", "needsClarification": "why?"}},
		},
	}
	tests := []struct {
		expr string
		ctx  *RouteContext // nil = ctx
		want bool
		err  string
	}{
		// The seed spellings.
		{expr: "steps[-1].output.approved = false", want: false}, // last step (planner) has no approved: nil != false
		{expr: "steps[-2].output.approved = false", want: true},
		{expr: "$last('reviewer').approved = false", want: true},
		{expr: "$first('planner').status = 'ready'", want: true},
		{expr: "$last('planner').status = 'ready'", want: false},
		{expr: "$exists(steps[-1].output.needsClarification)", want: true},
		{expr: "$exists(steps[-2].output.needsClarification)", want: false},
		{expr: "$exists($last('reviewer'))", want: true},
		{expr: "$exists($last('tester'))", want: false},
		// Missing fields and nil receivers are nil, never errors.
		{expr: "$last('tester').approved = false", want: false},
		{expr: "$last('tester').a.b.c = nil", want: true},
		{expr: "steps[99].output.x = nil", want: true},
		{expr: "steps[-99].output.x.y = 1", want: false},
		{expr: "steps[-1].output.x", want: false}, // nil result counts as false
		{expr: "steps[-1].output['needsClarification'] = 'why?'", want: true},
		{expr: "steps[-1].output.$status = nil and steps[-2].output['$status'] = nil", want: true},
		{expr: "steps[0].role = 'planner' and steps[0].agent = 'claude' and steps[0].edgePrompt = 'Plan.'", want: true},
		{expr: "start.workflow = 'solve-issue' && start.prompt contains 'bug'", want: true},
		{expr: "len(steps) = 4", want: true},
		{expr: "steps[0].output.n >= 3", want: true},
		{expr: "steps[0].output.n.x = nil", want: true},
		{expr: "steps[1].output.files[1] = 'b.go'", want: true},
		{expr: "'a.go' in steps[1].output.files", want: true},
		{expr: "$last('tester')?.approved = nil", want: true},
		{expr: "steps[-1].output.approved = false", ctx: &RouteContext{}, want: false},
		{expr: "$exists($first('planner'))", ctx: &RouteContext{}, want: false},
		// Errors.
		{expr: "steps[0].output.plan", err: `condition "c" evaluated to string (p1), want a boolean`},
		{expr: "len(steps)", err: `evaluated to int`},
		{expr: "1 +", err: "unexpected token"},
		{expr: "unknownVar = 1", err: "unknown name unknownVar"},
		{expr: "$nope('x')", err: "unknown name nope"},
		{expr: "", err: "empty expression"},
		{expr: "map(1..100000, # * 2) == nil", err: "memory budget exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			c := ctx
			if tt.ctx != nil {
				c = *tt.ctx
			}
			prog, err := compileCondition(tt.expr)
			var got bool
			if err == nil {
				got, err = evalCondition("c", prog, newExprEnv(c))
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if got != tt.want {
				t.Errorf("= %v, want %v", got, tt.want)
			}
		})
	}
}

func TestConditionSandbox(t *testing.T) {
	long := strings.Repeat("1 + ", 3000) + "1 == 2"
	if _, err := compileCondition(long); err == nil {
		t.Error("compiled an expression longer than the limit")
	}
	many := strings.Repeat("(", 200) + "true" + strings.Repeat(")", 200)
	if _, err := compileCondition(many); err != nil {
		t.Errorf("nested parentheses: %v", err)
	}
	nodes := strings.Repeat("1+", 1500) + "1 == 2"
	if _, err := compileCondition(nodes); err == nil || !strings.Contains(err.Error(), "exceeds maximum allowed nodes") {
		t.Errorf("node limit: %v", err)
	}
}
