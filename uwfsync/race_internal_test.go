package uwfsync

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

// TestReconcileRacingRef: when a ref of the batch moves between the
// decision and the transaction, the transaction fails as a whole and the
// run falls back to one update per ref: the racing ref is reported as an
// error and keeps the value the other writer gave it, every other thread is
// still created, and the next fetch retries nothing it already did.
func TestReconcileRacingRef(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a := chaintest.Open(t, repos.A)
	text, err := os.ReadFile("testdata/review-loop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wf, _, err := a.RegisterWorkflow(ctx, chaintest.Workflow(t, "review-loop", string(text)))
	if err != nil {
		t.Fatal(err)
	}
	var threads []*chain.Thread
	for _, prompt := range []string{"one", "two", "three"} {
		th, err := a.StartThread(ctx, wf, prompt, "/")
		if err != nil {
			t.Fatal(err)
		}
		threads = append(threads, th)
	}
	chaintest.Git(t, repos.A, "push", "-q", "origin", "refs/uwf/*:refs/uwf/*")

	trace := filepath.Join(t.TempDir(), "trace")
	b, err := chain.Open(ctx, repos.B, chain.Options{Env: []string{"GIT_TRACE=" + trace}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := fetchState(ctx, b, "origin")
	if err != nil {
		t.Fatal(err)
	}
	racing := threads[1]
	other := threads[0].Head.Commit.String() // what the racing writer sets
	rc := newReconciler(b, "origin", modeSync, st)
	rc.beforeFlush = func() {
		chaintest.Git(t, repos.B, "update-ref", racing.ID.Ref(), other, "")
	}
	rep, err := rc.run(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range threads {
		var res *Result
		for i := range rep.Results {
			if rep.Results[i].Ref == th.ID.Ref() {
				res = &rep.Results[i]
			}
		}
		got := chaintest.Git(t, repos.B, "rev-parse", th.ID.Ref())
		switch {
		case res == nil:
			t.Errorf("no result for %s", th.ID)
		case th == racing:
			if res.Kind != KindError || res.New != res.Old || !strings.Contains(res.Reason, "sync again") {
				t.Errorf("racing %s = %+v, want an error asking to sync again", th.ID, *res)
			}
			if got != other {
				t.Errorf("racing %s = %s, want the other writer's %s kept", th.ID, got, other)
			}
		default:
			if res.Kind != KindNew || got != th.Head.Commit.String() {
				t.Errorf("%s = %+v at %s, want new at %s", th.ID, *res, got, th.Head.Commit)
			}
		}
	}
	moves := 0 // the threads and their workflow's registry
	for _, res := range rep.Results {
		if res.Kind == KindNew || res.Kind == KindError {
			moves++
		}
	}
	b2, _ := os.ReadFile(trace)
	// One failed transaction, then one update per ref.
	if got := strings.Count(string(b2), "built-in: git update-ref"); got != 1+moves || moves != len(threads)+1 {
		t.Errorf("git update-ref ran %d times for %d moves, want the batch, then one per ref (%d)", got, moves, 1+len(threads)+1)
	}
}
