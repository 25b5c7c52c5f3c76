package uwfsync_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

// TestAdoptFetched: AdoptFetched reconciles only the remote-tracking refs
// that moved since they were last reconciled; with nothing moved it does
// nothing; a ref it could not reconcile is retried; a damaged record means
// a full adopt.
func TestAdoptFetched(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	for _, r := range []*chain.Repo{a, b} {
		if _, err := uwfsync.SetupRemote(ctx, r, origin); err != nil {
			t.Fatal(err)
		}
	}
	th := start(t, a, "moves")
	other := start(t, a, "stays")
	mustSync(t, a)
	chaintest.Git(t, repos.B, "fetch", "-q")

	adopt := func(want ...string) map[string]uwfsync.Result {
		t.Helper()
		reps, err := uwfsync.AdoptFetched(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]uwfsync.Result{}
		for _, rep := range reps {
			for _, res := range rep.Results {
				got[res.Ref] = res
			}
		}
		for _, ref := range want {
			if _, ok := got[ref]; !ok {
				t.Errorf("AdoptFetched did not look at %s: %+v", ref, got)
			}
		}
		if len(got) != len(want) {
			t.Errorf("AdoptFetched looked at %d refs, want %d (%v): %+v", len(got), len(want), want, got)
		}
		return got
	}
	wf := chain.WorkflowsPrefix + "review-loop"
	if got := adopt(th.ID.Ref(), other.ID.Ref(), wf); got[th.ID.Ref()].Kind != uwfsync.KindNew {
		t.Errorf("first AdoptFetched = %+v, want %s new", got, th.ID)
	}
	adopt() // nothing moved

	// A steps one thread; B's plain fetch moves one remote-tracking ref,
	// which B adopts while another process holds the thread: it fails,
	// and is retried once the thread is free.
	step := develop(t, a, th.ID, "next")
	mustSync(t, a)
	chaintest.Git(t, repos.B, "fetch", "-q")
	holder := chaintest.Open(t, repos.B)
	unlock, err := holder.LockThread(th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := adopt(th.ID.Ref()); got[th.ID.Ref()].Kind != uwfsync.KindError {
		t.Errorf("AdoptFetched of a busy thread = %+v, want error", got)
	}
	unlock()
	if got := adopt(th.ID.Ref()); got[th.ID.Ref()].Kind != uwfsync.KindFastForward || got[th.ID.Ref()].New != step.Commit.String() {
		t.Errorf("AdoptFetched after the thread was freed = %+v, want fast-forward to %s", got, step.Commit)
	}
	adopt()

	// A damaged record means a full adopt.
	records, err := filepath.Glob(filepath.Join(repos.B, ".git", "uwf", "cache", "adopted-*"))
	if err != nil || len(records) != 1 {
		t.Fatalf("adopted records = %v, %v; want one", records, err)
	}
	data, err := os.ReadFile(records[0])
	if err != nil {
		t.Fatal(err)
	}
	data[len("uwf-adopted 1 ")] ^= 1 // a flipped bit in the digest
	if err := os.WriteFile(records[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := adopt(th.ID.Ref(), other.ID.Ref(), wf); got[other.ID.Ref()].Kind != uwfsync.KindUpToDate {
		t.Errorf("AdoptFetched with a damaged record = %+v", got)
	}
	adopt()

	// A sync records what it reconciled and pushed.
	develop(t, b, other.ID, "B's step")
	mustSync(t, b)
	adopt()
}
