package threadgraph_test

import (
	"context"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/graph"
	"github.com/git-uwf/git-uwf/graph/threadgraph"
)

const reviewYAML = `name: review
roles:
  developer:
    frontmatter:
      type: object
      properties:
        $status: {const: review_needed}
      required: [$status]
  reviewer:
    frontmatter:
      type: object
      properties:
        $status: {enum: [approved, rejected, unsure]}
      required: [$status]
graph:
  $START:
    _: {role: developer, prompt: "Implement it."}
  developer:
    review_needed: {role: reviewer, prompt: "Review it."}
  reviewer:
    rejected: {role: developer, prompt: "Fix it."}
    approved: {role: $END, prompt: "Done."}
    unsure: {role: $SUSPEND, prompt: "Ask a person."}
`

// draw builds the graph of thread id as the viewer and `thread graph` do.
func draw(t *testing.T, repo *chain.Repo, id chain.ThreadID) graph.Graph {
	t.Helper()
	ctx := context.Background()
	th, err := repo.Thread(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := repo.Chain(ctx, th.Head.Commit)
	if err != nil {
		t.Fatal(err)
	}
	st, err := repo.State(ctx, th)
	if err != nil {
		t.Fatal(err)
	}
	rels, err := repo.Relatives(ctx, th, entries)
	if err != nil {
		t.Fatal(err)
	}
	g, err := threadgraph.Build(ctx, repo, th, entries, st, rels)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestBuild draws a thread that looped through review and was suspended,
// and a fork of its first step: the path, the visit and edge counts, what
// runs next and which thread shares whose history.
func TestBuild(t *testing.T) {
	ctx := context.Background()
	dir := chaintest.InitRepo(t)
	repo := chaintest.Open(t, dir)
	wf, _, err := repo.RegisterWorkflow(ctx, chaintest.Workflow(t, "review", reviewYAML))
	if err != nil {
		t.Fatal(err)
	}
	th, err := repo.StartThread(ctx, wf, "Add a flag", dir)
	if err != nil {
		t.Fatal(err)
	}
	var commits []*chain.Entry
	for _, s := range []struct{ role, status string }{
		{"developer", "review_needed"}, {"reviewer", "rejected"}, {"developer", "review_needed"}, {"reviewer", "unsure"},
	} {
		commits = append(commits, chaintest.Step(t, repo, th.ID, s.role, map[string]any{"$status": s.status}, ""))
	}
	fork, err := repo.Fork(ctx, commits[0].Commit)
	if err != nil {
		t.Fatal(err)
	}

	type edgeKey struct{ from, to string }
	tests := []struct {
		name   string
		id     chain.ThreadID
		path   []string
		visits map[string]int
		taken  map[edgeKey]int
		next   string
		forks  []graph.Fork
	}{
		{name: "looped and suspended", id: th.ID,
			path:   []string{"$START", "developer", "reviewer", "developer", "reviewer", "$SUSPEND"},
			visits: map[string]int{"developer": 2, "reviewer": 2},
			taken: map[edgeKey]int{{"$START", "developer"}: 1, {"developer", "reviewer"}: 2, {"reviewer", "developer"}: 1,
				{"reviewer", "$SUSPEND"}: 1, {"reviewer", "$END"}: 0},
			forks: []graph.Fork{{Thread: string(fork.ID), At: "developer", Step: 1, Relation: "fork"}}},
		{name: "fork of the first step", id: fork.ID,
			path:   []string{"$START", "developer"},
			visits: map[string]int{"developer": 1, "reviewer": 0},
			taken:  map[edgeKey]int{{"$START", "developer"}: 1, {"developer", "reviewer"}: 0, {"reviewer", "$SUSPEND"}: 0},
			next:   "reviewer",
			forks:  []graph.Fork{{Thread: string(th.ID), At: "developer", Step: 1, Relation: "parent"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := draw(t, repo, tt.id)
			if !reflect.DeepEqual(g.Path, tt.path) {
				t.Errorf("path %q, want %q", g.Path, tt.path)
			}
			next := ""
			for _, n := range g.Nodes {
				if want, ok := tt.visits[n.ID]; ok && n.Visits != want {
					t.Errorf("%s visited %d times, want %d", n.ID, n.Visits, want)
				}
				if n.Next {
					next = n.ID
				}
			}
			if next != tt.next {
				t.Errorf("next %q, want %q", next, tt.next)
			}
			seen := map[edgeKey]bool{}
			for _, e := range g.Edges {
				k := edgeKey{e.From, e.To}
				seen[k] = true
				if want, ok := tt.taken[k]; ok && e.Taken != want {
					t.Errorf("edge %s -> %s taken %d times, want %d", e.From, e.To, e.Taken, want)
				}
			}
			for k := range tt.taken {
				if !seen[k] {
					t.Errorf("no edge %s -> %s", k.from, k.to)
				}
			}
			if !reflect.DeepEqual(g.Forks, tt.forks) {
				t.Errorf("forks %+v, want %+v", g.Forks, tt.forks)
			}
			// The DOT of a thread graph (`thread graph --format dot`) is
			// valid Graphviz, where dot is installed.
			if dot, err := exec.LookPath("dot"); err == nil {
				cmd := exec.Command(dot, "-Tsvg")
				cmd.Stdin = strings.NewReader(graph.DOT(g))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("dot rejected the graph: %v\n%s\n%s", err, out, graph.DOT(g))
				}
			}
		})
	}
}
