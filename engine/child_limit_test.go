package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/engine"
)

// TestChildStepsTakeTheirWorkflowsSlot: each step of a child thread takes
// a slot of the child workflow's limit (the caller took the parent's), and
// a refused slot fails the parent step before the child's agent runs.
func TestChildStepsTakeTheirWorkflowsSlot(t *testing.T) {
	errFull := errors.New("workflow kid is full")
	tests := []struct {
		name    string
		refuse  bool
		wantErr error
	}{
		{"slot taken and freed", false, nil},
		{"slot refused", true, errFull},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fx := newFixture(t)
			id := newParent(t, fx, fx.dir)
			kidID := chain.ChildID(id, headOf(t, fx, id).Head, "fix")
			var taken, freed []string
			fx.eng.Limit = func(_ context.Context, wf string) (func(), error) {
				if tt.refuse {
					return nil, errFull
				}
				taken = append(taken, wf)
				return func() { freed = append(freed, wf) }, nil
			}
			_, err := fx.eng.Step(ctx, id, engine.StepOptions{Agent: agent("script", childScript)})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("step = %v, want %v", err, tt.wantErr)
			}
			kid := headOf(t, fx, kidID)
			if tt.refuse {
				if kid.Head.Kind != chain.KindStart {
					t.Errorf("the child stepped (head %s) though its slot was refused", kid.Head.Kind)
				}
				return
			}
			if want := []string{"kid"}; !slices.Equal(taken, want) || !slices.Equal(freed, want) {
				t.Errorf("slots taken %v, freed %v; want %v for the child's one step", taken, freed, want)
			}
			if st := headOf(t, fx, id); st.Head.Step == nil || st.Head.Step.Child != kid.ID {
				t.Errorf("the parent's step does not name its child %s", kid.ID)
			}
		})
	}
}

// TestChildCycleThroughAnOlderVersion: a parent pinned to an older
// version of its workflow can reach that workflow again through the
// current registry (parent v1 → kid v2 → parent v2), which workflow put
// cannot see. The step is refused when the cycle is met, before the
// grandchild takes a second slot of parent (with a limit of one it would
// wait for itself) and before any agent runs.
func TestChildCycleThroughAnOlderVersion(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	id := newParent(t, fx, fx.dir) // pinned to parent v1, whose fix is played by kid
	plainParent := strings.Replace(childYAML, "name: kid", "name: parent", 1)
	plainParent = strings.ReplaceAll(plainParent, "worker", "fix")
	kidViaParent := strings.Replace(childYAML, "  worker:\n    frontmatter:", "  worker:\n    workflow: parent\n    frontmatter:", 1)
	for _, w := range []struct{ name, yaml string }{{"parent", plainParent}, {"kid", kidViaParent}} {
		if _, _, err := fx.repo.RegisterWorkflow(ctx, chaintest.Workflow(t, w.name, w.yaml)); err != nil {
			t.Fatal(err)
		}
	}
	var taken []string
	fx.eng.Limit = func(_ context.Context, wf string) (func(), error) {
		taken = append(taken, wf)
		return func() {}, nil
	}
	script := []scripted{{"fix", "---\n$status: done\nfixed: everything\n---\nEDGE"}}
	_, err := fx.eng.Step(ctx, id, engine.StepOptions{Agent: agent("script", script)})
	if err == nil || !strings.Contains(err.Error(), "parent → kid → parent") {
		t.Fatalf("step = %v, want the cycle parent → kid → parent refused", err)
	}
	if slices.Contains(taken, "parent") {
		t.Errorf("slots taken %v: the grandchild of workflow parent took a second slot of parent", taken)
	}
	if st := headOf(t, fx, id); st.Head.Kind != chain.KindStart {
		t.Errorf("the parent advanced (head %s) though its child met a cycle", st.Head.Kind)
	}
}
