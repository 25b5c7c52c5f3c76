package uwfsync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestAdoptFetchedAsksGitOnlyWhenSomethingMoved: when every remote-tracking
// git-uwf ref holds what an adopted record lists, AdoptFetched starts no
// git process (not even the one that reads which remotes are set up). It
// still asks, and takes over what moved, after a plain git fetch moves a
// ref, and whenever a remote without a record has git-uwf refs (which it
// then leaves alone when that remote is not set up).
func TestAdoptFetchedAsksGitOnlyWhenSomethingMoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a := chaintest.Open(t, repos.A)
	if _, err := uwfsync.SetupRemote(ctx, a, origin); err != nil {
		t.Fatal(err)
	}
	if _, err := uwfsync.SetupRemote(ctx, chaintest.Open(t, repos.B), origin); err != nil {
		t.Fatal(err)
	}
	// adopt runs AdoptFetched in B with git traced and returns the refs it
	// reported and whether it read the configuration.
	n := 0
	adopt := func() (map[string]uwfsync.Kind, bool) {
		t.Helper()
		n++
		trace := filepath.Join(t.TempDir(), fmt.Sprintf("trace-%d", n))
		b, err := chain.Open(ctx, repos.B, chain.Options{Env: []string{"GIT_TRACE=" + trace}})
		if err != nil {
			t.Fatal(err)
		}
		reps, err := uwfsync.AdoptFetched(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]uwfsync.Kind{}
		for _, rep := range reps {
			for _, res := range rep.Results {
				got[res.Ref] = res.Kind
			}
		}
		traced, _ := os.ReadFile(trace)
		return got, strings.Contains(string(traced), "git config")
	}
	// Before any fetch, B has no git-uwf remote-tracking ref and no record.
	if got, asked := adopt(); len(got) != 0 || asked {
		t.Fatalf("AdoptFetched with nothing fetched = %v, read the configuration: %v; want nothing, and no git process", got, asked)
	}
	th := start(t, a, "travels")
	mustSync(t, a)
	chaintest.Git(t, repos.B, "fetch", "-q")
	if got, asked := adopt(); got[th.ID.Ref()] != uwfsync.KindNew || !asked {
		t.Fatalf("first AdoptFetched = %v (read the configuration: %v), want %s new after reading it", got, asked, th.ID)
	}
	if got, asked := adopt(); len(got) != 0 || asked {
		t.Errorf("AdoptFetched with nothing moved = %v, read the configuration: %v; want nothing, and no git process", got, asked)
	}

	develop(t, a, th.ID, "next")
	mustSync(t, a)
	chaintest.Git(t, repos.B, "fetch", "-q")
	if got, asked := adopt(); got[th.ID.Ref()] != uwfsync.KindFastForward || !asked {
		t.Errorf("AdoptFetched after a fetch moved %s = %v (read the configuration: %v), want a fast-forward", th.ID, got, asked)
	}
	if got, asked := adopt(); len(got) != 0 || asked {
		t.Errorf("AdoptFetched with nothing moved again = %v, read the configuration: %v; want nothing, and no git process", got, asked)
	}

	// git-uwf refs of a remote that is not set up and has no record: each
	// run asks, and takes nothing over from it.
	chaintest.Git(t, repos.B, "remote", "add", "mirror", repos.Remote)
	chaintest.Git(t, repos.B, "fetch", "-q", "mirror", "+refs/uwf/*:refs/remotes/mirror/uwf/*")
	for range 2 {
		if got, asked := adopt(); len(got) != 0 || !asked {
			t.Errorf("AdoptFetched beside a remote without a record = %v, read the configuration: %v; want nothing taken, after asking", got, asked)
		}
	}
	// Packed, the same.
	chaintest.Git(t, repos.B, "pack-refs", "--all")
	if got, asked := adopt(); len(got) != 0 || !asked {
		t.Errorf("AdoptFetched beside packed refs of a remote without a record = %v, read the configuration: %v; want nothing taken, after asking", got, asked)
	}
	chaintest.Git(t, repos.B, "remote", "remove", "mirror")
	if got, asked := adopt(); len(got) != 0 || asked {
		t.Errorf("AdoptFetched once that remote is gone = %v, read the configuration: %v; want nothing, and no git process", got, asked)
	}

	// A "uwf" directory that is no remote's git-uwf namespace (a branch
	// feature/uwf/x of origin), and refs that could be another remote's
	// (one named origin/uwf/nested) inside origin's: each run asks.
	head := chaintest.Git(t, repos.B, "rev-parse", "HEAD")
	for _, ref := range []string{"refs/remotes/origin/feature/uwf/x", "refs/remotes/origin/uwf/nested/uwf/threads/01X"} {
		chaintest.Git(t, repos.B, "update-ref", ref, head)
		for range 2 {
			if _, asked := adopt(); !asked {
				t.Errorf("AdoptFetched beside %s did not read the configuration", ref)
			}
		}
		chaintest.Git(t, repos.B, "update-ref", "-d", ref)
	}

	// A recorded remote whose refs are all gone has nothing to take over.
	chaintest.Git(t, repos.B, "remote", "remove", "origin")
	if got, asked := adopt(); len(got) != 0 || asked {
		t.Errorf("AdoptFetched once origin and its refs are gone = %v, read the configuration: %v; want nothing, and no git process", got, asked)
	}
}
