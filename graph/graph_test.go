package graph

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/git-uwf/git-uwf/moderator"
)

const reviewYAML = `name: review
roles:
  dev:
    goal: g
    frontmatter:
      type: object
      properties:
        $status: {enum: [done, stuck]}
      required: [$status]
  reviewer:
    goal: g
    frontmatter:
      type: object
      properties:
        $status: {enum: [approved, "re\"ject<ed>"]}
      required: [$status]
graph:
  $START:
    _: {role: dev, prompt: go}
  dev:
    done: {role: reviewer, prompt: look}
    stuck: {role: $SUSPEND, prompt: help}
  reviewer:
    "re\"ject<ed>": {role: dev, prompt: again}
    approved: {role: $END, prompt: ok}
`

func reviewWorkflow(t *testing.T) *moderator.Workflow {
	t.Helper()
	w, err := moderator.Parse(fstest.MapFS{}, "review.yaml", []byte(reviewYAML))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

const (
	reviewer = "reviewer"
	rejected = "re\"ject<ed>"
)

func TestTrace(t *testing.T) {
	tests := []struct {
		name      string
		steps     []Step
		end       Ending
		wantPath  []string
		wantTaken map[string]int // "from>to" → count
		wantVisit map[string]int
		wantNext  string
	}{
		{
			name:     "loop then approve",
			steps:    []Step{{"dev", "done", false}, {reviewer, rejected, false}, {"dev", "done", false}, {reviewer, "approved", false}},
			end:      Ending{To: moderator.End},
			wantPath: []string{"$START", "dev", reviewer, "dev", reviewer, "$END"},
			wantTaken: map[string]int{"$START>dev": 1, "dev>" + reviewer: 2, reviewer + ">dev": 1,
				reviewer + ">$END": 1, "dev>$SUSPEND": 0},
			wantVisit: map[string]int{"dev": 2, reviewer: 2, "$END": 1, "$SUSPEND": 0},
		},
		{
			name:      "idle with a next role",
			steps:     []Step{{"dev", "done", false}},
			end:       Ending{Next: reviewer},
			wantPath:  []string{"$START", "dev"},
			wantTaken: map[string]int{"$START>dev": 1, "dev>" + reviewer: 0},
			wantVisit: map[string]int{"dev": 1, reviewer: 0},
			wantNext:  reviewer,
		},
		{
			name:      "suspended and resumed",
			steps:     []Step{{"dev", "stuck", false}, {"dev", "done", true}},
			end:       Ending{Next: reviewer},
			wantPath:  []string{"$START", "dev", "$SUSPEND", "dev"},
			wantTaken: map[string]int{"dev>$SUSPEND": 1, "$SUSPEND>dev": 1},
			wantVisit: map[string]int{"dev": 2, "$SUSPEND": 1},
			wantNext:  reviewer,
		},
		{
			name:      "a role the workflow no longer has",
			steps:     []Step{{"ghost", "", false}},
			wantPath:  []string{"$START", "ghost"},
			wantTaken: map[string]int{"$START>ghost": 1},
			wantVisit: map[string]int{"ghost": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Build(reviewWorkflow(t))
			g.Trace(tt.steps, tt.end)
			if !slices.Equal(g.Path, tt.wantPath) {
				t.Errorf("path = %q, want %q", g.Path, tt.wantPath)
			}
			taken := map[string]int{}
			for _, e := range g.Edges {
				taken[e.From+">"+e.To] += e.Taken
			}
			for k, want := range tt.wantTaken {
				if taken[k] != want {
					t.Errorf("taken[%s] = %d, want %d", k, taken[k], want)
				}
			}
			next := ""
			for _, n := range g.Nodes {
				if want, ok := tt.wantVisit[n.ID]; ok && n.Visits != want {
					t.Errorf("visits[%s] = %d, want %d", n.ID, n.Visits, want)
				}
				if n.Next {
					next = n.ID
				}
			}
			if next != tt.wantNext {
				t.Errorf("next = %q, want %q", next, tt.wantNext)
			}
		})
	}
}

// TestTraceMatchesStatus checks that a traversal lands on the edge whose
// status the previous output had, not just any edge between the nodes.
func TestTraceMatchesStatus(t *testing.T) {
	w, err := moderator.Parse(fstest.MapFS{}, "w.yaml", []byte(`name: w
roles:
  a:
    goal: g
    frontmatter: {type: object, properties: {$status: {enum: [x, y, z]}}, required: [$status]}
graph:
  $START:
    _: {role: a, prompt: p}
  a:
    x: {role: a, prompt: p}
    y: {role: a, prompt: q}
    z: {role: $END, prompt: r}
`))
	if err != nil {
		t.Fatal(err)
	}
	g := Build(w)
	g.Trace([]Step{{"a", "y", false}, {"a", "y", false}, {"a", "x", false}}, Ending{})
	got := map[string]int{}
	for _, e := range g.Edges {
		got[e.From+">"+e.To+":"+e.Status] = e.Taken
	}
	want := map[string]int{"$START>a:_": 1, "a>a:x": 0, "a>a:y": 2, "a>$END:z": 0}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s taken %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
}

func tracedGraph(t *testing.T) Graph {
	g := Build(reviewWorkflow(t))
	g.Trace([]Step{{"dev", "done", false}, {reviewer, rejected, false}, {"dev", "done", false}}, Ending{Next: reviewer})
	g.Forks = []Fork{{Thread: "01FORK", At: "dev", Step: 1, Relation: "fork"}, {Thread: "01PARENT", At: "$START", Step: 0, Relation: "parent"}}
	return g
}

func TestRenderEscapesNames(t *testing.T) {
	g := tracedGraph(t)
	tests := []struct {
		name    string
		out     string
		want    []string
		notWant []string
	}{
		{"mermaid", Mermaid(g), []string{`|"re#quot;ject#lt;ed#gt;"|`, `["dev ×2"]`, "linkStyle", "class n0,n1 visited", "class n2 next", "f0{{\"fork 01FORK\"}}", "f1 -.->"}, []string{`re"ject`}},
		{"dot", DOT(g), []string{`label="re\"ject<ed>"`, `label="dev ×2"`, `style="rounded,dashed"`, `f0 [label="fork 01FORK"`, "style=dotted"}, nil},
		{"svg", SVG(g), []string{"re&#34;ject&lt;ed&gt;", `stroke-dasharray="5 4"`, `data-node="dev"`, "×2"}, []string{"<ed>", "<style", "style="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range tt.want {
				if !strings.Contains(tt.out, w) {
					t.Errorf("output lacks %q:\n%s", w, tt.out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(tt.out, w) {
					t.Errorf("output contains %q:\n%s", w, tt.out)
				}
			}
		})
	}
}

// TestDOTIsValidGraphviz feeds the DOT output to dot(1) when it is installed.
func TestDOTIsValidGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("graphviz (dot) is not installed: apt-get install graphviz to run this test (.ci/run does)")
	}
	for _, g := range []Graph{Build(reviewWorkflow(t)), tracedGraph(t)} {
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = strings.NewReader(DOT(g))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("dot rejected the graph: %v\n%s\n%s", err, out, DOT(g))
		}
	}
}
