package uwfsync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

// TestScenario follows the issue: A starts and steps a thread and pushes; B
// fetches and reads it byte for byte, forks from step 1, steps the fork and
// pushes; A sees both; then A and B step the same thread and sync: both
// histories are kept and a second sync changes nothing.
func TestScenario(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)

	// A starts and steps a thread and pushes.
	th := start(t, a, "add a health endpoint")
	step1 := develop(t, a, th.ID, "endpoint added")
	rep := mustSync(t, a)
	result(t, rep, th.ID.Ref(), uwfsync.KindPushed)
	result(t, rep, chain.WorkflowsPrefix+"review-loop", uwfsync.KindPushed)
	if got := chaintest.Git(t, repos.Remote, "rev-parse", th.ID.Ref()); got != step1.Commit.String() {
		t.Fatalf("remote %s = %s, want %s", th.ID.Ref(), got, step1.Commit)
	}

	// B fetches and reads the same thread, byte for byte.
	rep = mustFetch(t, b)
	if res := result(t, rep, th.ID.Ref()); res.Kind != uwfsync.KindNew || res.New != step1.Commit.String() || res.Steps != 1 {
		t.Fatalf("B fetch of %s = %+v, want new at %s with 1 step", th.ID, res, step1.Commit)
	}
	for _, obj := range []string{step1.Commit.String(), step1.Commit.String() + ":output.md", step1.Commit.String() + ":node"} {
		if ga, gb := chaintest.Git(t, repos.A, "cat-file", "-p", obj), chaintest.Git(t, repos.B, "cat-file", "-p", obj); ga != gb {
			t.Errorf("cat-file -p %s differs:\nA: %s\nB: %s", obj, ga, gb)
		}
	}
	readIn := func(r *chain.Repo, id chain.ThreadID) string {
		t.Helper()
		tr, err := r.Thread(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		md, err := r.Read(ctx, tr, chain.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return md
	}
	if ra, rb := readIn(a, th.ID), readIn(b, th.ID); ra != rb || !strings.Contains(rb, "endpoint added") {
		t.Errorf("thread read differs or misses the step:\nA:\n%s\nB:\n%s", ra, rb)
	}
	if _, err := b.Store.Get(step1.Node.Alias); err != nil {
		t.Errorf("B resolves step alias %s: %v", step1.Node.Alias, err)
	}

	// B forks from step 1, steps the fork and pushes; A fetches and sees both.
	fork, err := b.Fork(ctx, step1.Commit)
	if err != nil {
		t.Fatal(err)
	}
	forkStep := review(t, b, fork.ID, "rejected", "add tests")
	rep = mustSync(t, b)
	result(t, rep, fork.ID.Ref(), uwfsync.KindPushed)
	rep = mustFetch(t, a)
	if res := result(t, rep, fork.ID.Ref()); res.Kind != uwfsync.KindNew || res.New != forkStep.Commit.String() {
		t.Fatalf("A fetch of fork %s = %+v", fork.ID, res)
	}
	ids, _, err := a.ThreadIDs(ctx)
	if err != nil || len(ids) != 2 {
		t.Fatalf("A threads = %v, %v; want %s and %s", ids, err, th.ID, fork.ID)
	}

	// A and B both step the same thread, then sync A, then B.
	aStep := review(t, a, th.ID, "approved", "ship it")
	bStep := review(t, b, th.ID, "rejected", "needs docs")
	mustSync(t, a)
	rep = mustSync(t, b)
	res := result(t, rep, th.ID.Ref(), uwfsync.KindForked)
	wantFork := uwfsync.ForkID(th.ID, bStep.Commit.String(), bStep.Time)
	if res.New != aStep.Commit.String() || res.Old != bStep.Commit.String() || res.Fork != wantFork.Ref() {
		t.Fatalf("B sync of %s = %+v, want remote line %s kept, B's %s saved as %s", th.ID, res, aStep.Commit, bStep.Commit, wantFork)
	}
	result(t, rep, wantFork.Ref(), uwfsync.KindPushed)
	rep = mustSync(t, a)
	result(t, rep, wantFork.Ref(), uwfsync.KindNew)

	// Both histories kept, in both clones and on the remote.
	for _, dir := range []string{repos.A, repos.B, repos.Remote} {
		if got := chaintest.Git(t, dir, "rev-parse", th.ID.Ref(), wantFork.Ref()); got != aStep.Commit.String()+"\n"+bStep.Commit.String() {
			t.Errorf("%s: %s and fork = %s, want A's and B's steps", dir, th.ID, got)
		}
	}
	if ra, rb := refs(t, repos.A), refs(t, repos.B); ra != rb {
		t.Errorf("refs differ after sync:\nA:\n%s\nB:\n%s", ra, rb)
	}
	if _, err := b.Thread(ctx, wantFork); err != nil {
		t.Errorf("fork %s is not a readable thread: %v", wantFork, err)
	}

	// A second sync on either side changes nothing and adds no duplicate.
	before := refs(t, repos.A)
	for _, r := range []*chain.Repo{a, b, a} {
		if changed := mustSync(t, r).Changed(); len(changed) != 0 {
			t.Errorf("second sync of %s changed %+v", r.Info.CommonDir, changed)
		}
	}
	if after := refs(t, repos.B); after != before {
		t.Errorf("refs changed by a second sync:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	for _, dir := range []string{repos.A, repos.B, repos.Remote} {
		chaintest.Fsck(t, dir)
	}
}
