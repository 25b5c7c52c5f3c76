package uwfsync_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

// updateRefRuns counts the git update-ref processes recorded in a
// GIT_TRACE file.
func updateRefRuns(t *testing.T, trace string) int {
	t.Helper()
	b, err := os.ReadFile(trace)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "built-in: git update-ref") {
			n++
		}
	}
	return n
}

// openTraced opens dir with git's trace of every command it runs going to
// a file, whose path it returns.
func openTraced(t *testing.T, dir string) (*chain.Repo, string) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace")
	r, err := chain.Open(context.Background(), dir, chain.Options{Env: []string{"GIT_TRACE=" + trace}})
	if err != nil {
		t.Fatal(err)
	}
	return r, trace
}

// TestReconcileOneTransaction: a fetch that brings many new threads, a
// fast-forward and an invalid ref moves every local ref in one
// git update-ref process; the invalid ref is reported and does not stop
// the others, and fetching again moves nothing.
func TestReconcileOneTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a := chaintest.Open(t, repos.A)
	shared := start(t, a, "shared task")
	mustSync(t, a)
	mustFetch(t, chaintest.Open(t, repos.B))
	step := develop(t, a, shared.ID, "moved on")
	const n = 30
	var fresh []*chain.Thread
	for i := range n {
		fresh = append(fresh, start(t, a, "task "+string(rune('a'+i%26))))
	}
	bogus := chain.NewThreadID(a.Now())
	chaintest.Git(t, repos.A, "update-ref", bogus.Ref(), "main") // not a thread
	mustSync(t, a)
	chaintest.Git(t, repos.A, "push", "-q", "origin", bogus.Ref())

	b, trace := openTraced(t, repos.B)
	rep, err := uwfsync.Fetch(ctx, b, origin)
	if err != nil {
		t.Fatal(err)
	}
	if got := updateRefRuns(t, trace); got != 1 {
		t.Errorf("fetch of %d new threads ran git update-ref %d times, want 1", n, got)
	}
	for _, th := range fresh {
		if res := result(t, rep, th.ID.Ref()); res.Kind != uwfsync.KindNew || res.New != th.Head.Commit.String() {
			t.Errorf("%s = %+v, want new at %s", th.ID, res, th.Head.Commit)
		}
		if got := chaintest.Git(t, repos.B, "rev-parse", th.ID.Ref()); got != th.Head.Commit.String() {
			t.Errorf("B's %s = %s, want %s", th.ID, got, th.Head.Commit)
		}
	}
	if res := result(t, rep, shared.ID.Ref()); res.Kind != uwfsync.KindFastForward || res.New != step.Commit.String() {
		t.Errorf("%s = %+v, want fast-forward to %s", shared.ID, res, step.Commit)
	}
	if res := result(t, rep, bogus.Ref()); res.Kind != uwfsync.KindInvalid {
		t.Errorf("%s = %+v, want invalid", bogus, res)
	}
	if out := chaintest.Git(t, repos.B, "for-each-ref", bogus.Ref()); out != "" {
		t.Errorf("invalid ref copied: %s", out)
	}
	before := updateRefRuns(t, trace)
	rep = mustFetch(t, b)
	if changed := rep.Changed(); len(changed) != 1 || changed[0].Ref != bogus.Ref() {
		t.Errorf("second fetch changed %+v, want only the invalid ref reported", changed)
	}
	if got := updateRefRuns(t, trace) - before; got != 0 {
		t.Errorf("a fetch with nothing new ran git update-ref %d times", got)
	}
}
