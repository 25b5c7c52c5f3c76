package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/engine"
)

// childYAML is a one-role workflow that plays parentYAML's role fix.
const childYAML = `name: kid
roles:
  worker:
    frontmatter:
      type: object
      properties:
        $status: {const: done}
        fixed: {type: string}
      required: [$status]
graph:
  $START:
    _: {role: worker, prompt: "Do the task."}
  worker:
    done: {role: $END, prompt: "Done."}
`

const parentYAML = `name: parent
roles:
  fix:
    workflow: kid
    frontmatter:
      type: object
      properties:
        $status: {const: done}
        fixed: {type: string}
      required: [$status]
graph:
  $START:
    _: {role: fix, prompt: "Fix the build."}
  fix:
    done: {role: $END, prompt: "Finished."}
`

var childScript = []scripted{{"worker", "---\n$status: done\nfixed: everything\n---\nEDGE"}}

// newParent registers the kid and parent workflows in fx's repository and
// starts a parent thread recording cwd.
func newParent(t *testing.T, fx *fixture, cwd string) chain.ThreadID {
	t.Helper()
	ctx := context.Background()
	var info *chain.WorkflowInfo
	for _, w := range []struct{ name, yaml string }{{"kid", childYAML}, {"parent", parentYAML}} {
		i, _, err := fx.repo.RegisterWorkflow(ctx, chaintest.Workflow(t, w.name, w.yaml))
		if err != nil {
			t.Fatal(err)
		}
		info = i
	}
	th, err := fx.repo.StartThread(ctx, info, "the build", cwd)
	if err != nil {
		t.Fatal(err)
	}
	return th.ID
}

// childOf returns the child thread named by the parent's head step.
func childOf(t *testing.T, fx *fixture, parent chain.ThreadID) *chain.Thread {
	t.Helper()
	ctx := context.Background()
	th := headOf(t, fx, parent)
	kids, err := fx.repo.Children(ctx, th)
	if err != nil || len(kids) != 1 {
		t.Fatalf("children of %s: %v, %v", parent, kids, err)
	}
	return headOf(t, fx, kids[0])
}

// TestChildOutsideWorktree: a parent stepped with the consent to run
// outside the work tree passes it on to its child, which recorded that
// directory absolute; without the consent the step fails before any agent.
func TestChildOutsideWorktree(t *testing.T) {
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, consent := range []bool{true, false} {
		fx := newFixture(t)
		id := newParent(t, fx, outside)
		_, err := fx.eng.Step(context.Background(), id, engine.StepOptions{Agent: agent("script", childScript), OutsideWorktree: consent})
		if !consent {
			if err == nil {
				t.Errorf("a parent outside the work tree stepped without consent")
			}
			continue
		}
		if err != nil {
			t.Fatalf("step with --outside-worktree: %v", err)
		}
		child := childOf(t, fx, id)
		if child.Start.Cwd != outside || child.Head.Step == nil || child.Head.Step.Cwd != outside {
			t.Errorf("child recorded %q and stepped in %+v, want %q", child.Start.Cwd, child.Head.Step, outside)
		}
	}
}
