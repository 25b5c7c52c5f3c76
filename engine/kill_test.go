package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/engine"
)

func TestKillFlag(t *testing.T) {
	tests := []struct {
		name string
		mode string
		// raise is when the flag goes up: "before" the step, or "during" it.
		raise string
	}{
		{"raised before the role runs", "script", "before"},
		{"raised while a slow agent runs", "hang", "during"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fx := newFixture(t)
			kill := engine.NewKillFlags(fx.repo)
			fx.eng.Kill = kill
			if tt.raise == "before" {
				if err := kill.Raise(fx.id, "stop it"); err != nil {
					t.Fatal(err)
				}
			} else {
				go func() {
					time.Sleep(300 * time.Millisecond)
					_ = kill.Raise(fx.id, "stop it")
				}()
			}
			began := time.Now()
			_, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent(tt.mode, loopScript)})
			var ce *engine.CancelledError
			if !errors.As(err, &ce) || ce.Reason != "stop it" {
				t.Fatalf("Step = %v, want a CancelledError", err)
			}
			if took := time.Since(began); took > 15*time.Second {
				t.Errorf("the agent was not stopped: the step took %s", took)
			}
			th, err := fx.repo.Thread(ctx, fx.id)
			if err != nil {
				t.Fatal(err)
			}
			if th.Head.Kind != chain.KindCancel || th.Head.Commit != ce.Commit {
				t.Errorf("head is a %s commit %s, want the cancel commit %s", th.Head.Kind, th.Head.Commit, ce.Commit)
			}
			if _, up := kill.Raised(fx.id); up {
				t.Error("the kill flag is still raised after the cancellation was recorded")
			}
		})
	}
}
