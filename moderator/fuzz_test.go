package moderator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzLoad feeds arbitrary bytes to the loader as a workflow file. It must
// never panic, must finish quickly (aliases are capped), and whatever loads
// must route from $START and survive a Document round trip.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/workflows/*.yaml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(minimalYAML))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("a: &a [x,x,x,x]\nb: &b [*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b]\n"))
	f.Add([]byte("name: x\nroles: {a: {frontmatter: !include f.json}}\n"))
	f.Add([]byte("<<: {name: fuzz}\n"))
	f.Add([]byte("{"))
	fsys := workflowsFS()
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		w, err := Parse(fsys, "fuzz.yaml", data)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Parse took %v", d)
		}
		if err != nil {
			if w != nil {
				t.Fatal("Parse returned a workflow and an error")
			}
			return
		}
		ctx := RouteContext{}
		_, _ = w.Route(ctx)
		for _, r := range w.RoleOrder {
			_, _ = w.Route(RouteContext{Steps: []StepView{{Role: r, Output: map[string]any{"$status": "x"}}}})
		}
		b, err := json.Marshal(w.Document())
		if err != nil {
			t.Fatalf("Document is not JSON: %v", err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if _, err := FromDocument(doc); err != nil {
			t.Fatalf("FromDocument of a loaded workflow failed: %v\n%s", err, b)
		}
	})
}

// FuzzCondition compiles and evaluates arbitrary expressions: never a panic.
func FuzzCondition(f *testing.F) {
	for _, s := range []string{
		"steps[-1].output.approved = false",
		"$last('reviewer').approved = false",
		"$first('planner').status = 'ready'",
		"$exists(steps[-1].output.needsClarification)",
		"$exists($last('reviewer'))",
		"start.prompt contains 'x' and len(steps) > 1",
		"map(1..1000, # * #)[999] = 1",
		"steps[1e9].output",
		"'a = b' = $x(",
		"let x = 1; x = 1",
		"steps | filter(.role = 'r') | len() > 0",
	} {
		f.Add(s)
	}
	ctx := RouteContext{
		Start: StartView{Workflow: "w", Prompt: "p"},
		Steps: []StepView{
			{Role: "planner", Output: map[string]any{"status": "ready", "list": []any{float64(1), "two", nil}}},
			{Role: "reviewer", Output: map[string]any{"approved": false, "nested": map[string]any{"a": map[string]any{}}}},
			{Role: "empty"},
		},
	}
	env := newExprEnv(ctx)
	f.Fuzz(func(t *testing.T, src string) {
		_ = translateExpr(src)
		prog, err := compileCondition(src)
		if err != nil {
			return
		}
		_, _ = evalCondition("fuzz", prog, env)
	})
}
