package chain_test

import (
	"context"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// The batch path (one cat-file process) derives exactly what the usual
// path does, and leaves what it cannot read to it.
func TestSummarizeBatchMatchesUsualPath(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	start := func(p string) *chain.Thread {
		th, err := r.StartThread(ctx, info, p, dir)
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	start("at its start")
	idle := start("one step")
	chaintest.Step(t, r, idle.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "body")
	done := start("completed")
	chaintest.Step(t, r, done.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
	chaintest.Step(t, r, done.ID, "reviewer", map[string]any{"$status": "approved"}, "")
	cancelled := start("cancelled")
	if _, err := r.Cancel(ctx, cancelled, "enough"); err != nil {
		t.Fatal(err)
	}
	failed := start("failed")
	if _, err := r.RecordAttempt(ctx, failed, chain.Attempt{Role: "developer", Agent: "x", Error: "boom", StartedAtMs: 1, CompletedAtMs: 2}); err != nil {
		t.Fatal(err)
	}
	// A thread ref pointing at a commit that is not a thread commit, and
	// one at a commit whose objects are missing.
	foreign := start("foreign head")
	chaintest.Git(t, dir, "commit", "--allow-empty", "-q", "-m", "plain")
	chaintest.Git(t, dir, "update-ref", foreign.ID.Ref(), chaintest.Git(t, dir, "rev-parse", "HEAD"))

	batch, usual, err := chaintest.Open(t, dir).SummariesBothWays(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(usual) != 6 {
		t.Fatalf("want 6 threads, got %d", len(usual))
	}
	sameListing(t, batch, usual)
	for id, want := range map[chain.ThreadID]chain.Status{idle.ID: chain.StatusIdle, done.ID: chain.StatusCompleted,
		cancelled.ID: chain.StatusCancelled, failed.ID: chain.StatusFailed, foreign.ID: chain.StatusFailed} {
		if batch[id].Status != want {
			t.Errorf("thread %s: %s, want %s", id, batch[id].Status, want)
		}
	}
}
