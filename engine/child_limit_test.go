package engine_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
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
