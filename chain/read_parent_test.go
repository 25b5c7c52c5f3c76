package chain_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// TestReadShowsParentLink: a child thread's read names its parent thread
// and role (the Uwf-Parent trailer of its start commit) however many steps
// it has; a thread started by hand has no such line.
func TestReadShowsParentLink(t *testing.T) {
	ctx := context.Background()
	dir := chaintest.InitRepo(t)
	repo := chaintest.Open(t, dir)
	infos := map[string]*chain.WorkflowInfo{}
	for _, w := range []struct{ name, yaml string }{{"plan-work", chaintest.PlanWorkYAML}, {"parent", childParentYAML}} {
		info, _, err := repo.RegisterWorkflow(ctx, chaintest.Workflow(t, w.name, w.yaml))
		if err != nil {
			t.Fatal(err)
		}
		infos[w.name] = info
	}
	parent, err := repo.StartThread(ctx, infos["parent"], "fix the build", dir)
	if err != nil {
		t.Fatal(err)
	}
	child, err := repo.StartChild(ctx, parent, "fix", infos["plan-work"], "Fix it.", ".")
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("**Parent:** thread `%s` (plays its role fix)", parent.ID)
	for steps := 0; steps <= 3; steps++ {
		if steps > 0 {
			role, out := "planner", map[string]any{"$status": "planned", "plan": "p"}
			if steps%2 == 0 {
				role, out = "worker", map[string]any{"$status": "blocked", "notes": "n"}
			}
			chaintest.Step(t, repo, child.ID, role, out, "")
		}
		for _, tt := range []struct {
			id   chain.ThreadID
			want bool
		}{{child.ID, true}, {parent.ID, false}} {
			r := chaintest.Open(t, dir)
			th, err := r.CachedThread(ctx, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			md, err := r.Read(ctx, th, chain.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(md, line); got != tt.want {
				t.Errorf("%d child steps: read of %s shows the parent line: %v, want %v\n%s", steps, tt.id, got, tt.want, md)
			}
		}
	}
}
