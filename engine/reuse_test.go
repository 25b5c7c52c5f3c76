package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/engine"
)

// TestReuseKeptStepOnce: the agent's valid step could not be appended
// (the thread's ref lock was left behind); then four retries run at once
// with an agent that fails when it runs. Exactly one appends the kept
// step (saying which attempt it reused); each other one is busy or, when
// it came after, ran its agent for the next step (which failed); the
// thread advanced by exactly one step.
func TestReuseKeptStepOnce(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	lock := filepath.Join(fx.repo.Info.CommonDir, "refs", "uwf", "threads", string(fx.id)+".lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A lock older than a few seconds is taken for a crash leftover and
	// removed; dated in the future, this one stays however slow the run.
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(lock, future, future); err != nil {
		t.Fatal(err)
	}
	_, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", loopScript)})
	var failed *engine.StepFailedError
	if !errors.As(err, &failed) || failed.Phase != "append" || failed.Attempt.IsZero() {
		t.Fatalf("step with the ref locked: %v, want a failed append with its attempt kept", err)
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]*engine.Result, 4)
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("exit3", nil)})
		}(i)
	}
	wg.Wait()
	ok, busy := 0, 0
	for i, err := range errs {
		var later *engine.StepFailedError
		switch {
		case err == nil:
			ok++
			if results[i].ReusedAttempt != failed.Attempt.String() || results[i].Role != "developer" {
				t.Errorf("result reused %q as role %q, want attempt %s as developer", results[i].ReusedAttempt, results[i].Role, failed.Attempt)
			}
		case errors.Is(err, chain.ErrBusy):
			busy++
		case errors.As(err, &later) && later.Phase == "agent":
			busy++ // it ran after the reuse, on the new head
		default:
			t.Errorf("retry %d: %v", i, err)
		}
	}
	th, err := fx.repo.Thread(ctx, fx.id)
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := fx.repo.Steps(ctx, th)
	if ok != 1 || busy != 3 || len(steps) != 2 {
		t.Fatalf("%d appended, %d busy, %d entries; want 1, 3 (busy or later) and start + 1 step", ok, busy, len(steps))
	}
	// Nothing is left to reuse: the next step runs its agent (which fails).
	if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("exit3", nil)}); !errors.As(err, &failed) || failed.Phase != "agent" {
		t.Fatalf("next step: %v, want the agent to run and fail", err)
	}
}
