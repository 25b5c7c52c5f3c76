package chain_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

func listByID(t *testing.T, r *chain.Repo) map[chain.ThreadID]chain.Summary {
	t.Helper()
	l, err := r.List(context.Background(), chain.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[chain.ThreadID]chain.Summary{}
	for i, s := range l {
		if i > 0 && l[i-1].Thread <= s.Thread {
			t.Fatalf("list not newest first: %s before %s", l[i-1].Thread, s.Thread)
		}
		out[s.Thread] = s
	}
	return out
}

// uncached lists with a fresh Repo and no cache file, for comparison.
func uncached(t *testing.T, dir string) map[chain.ThreadID]chain.Summary {
	t.Helper()
	os.RemoveAll(filepath.Join(dir, ".git", "uwf", "cache"))
	return listByID(t, chaintest.Open(t, dir))
}

func sameListing(t *testing.T, got, want map[chain.ThreadID]chain.Summary) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d threads, want %d", len(got), len(want))
	}
	for id, w := range want {
		g := got[id]
		if g.Status != w.Status || g.HeadCommit != w.HeadCommit || g.Head != w.Head || g.Prompt != w.Prompt ||
			g.Error != w.Error || !g.UpdatedAt.Equal(w.UpdatedAt) || !g.CreatedAt.Equal(w.CreatedAt) ||
			g.Workflow != w.Workflow || g.WorkflowHash != w.WorkflowHash ||
			g.Branch != w.Branch || g.StartCommit != w.StartCommit || g.Fork != w.Fork ||
			deref(g.CurrentRole) != deref(w.CurrentRole) || deref(g.SuspendedRole) != deref(w.SuspendedRole) {
			t.Errorf("thread %s:\n got %+v\nwant %+v", id, g, w)
		}
	}
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestSummaryCache(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	a, err := r.StartThread(ctx, info, "task \"a\"\twith\ttabs\nand lines", dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.StartThread(ctx, info, "task b", dir)
	if err != nil {
		t.Fatal(err)
	}
	chaintest.Step(t, r, b.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
	cachePath := filepath.Join(dir, ".git", "uwf", "cache", "summaries")

	first := listByID(t, r)
	if _, err := os.Stat(cachePath); err != nil {
		t.Fatalf("no cache file after a listing: %v", err)
	}
	// A second listing (and another process) reads the cache and agrees.
	sameListing(t, listByID(t, r), first)
	sameListing(t, listByID(t, chaintest.Open(t, dir)), first)
	if s := first[b.ID]; s.Status != chain.StatusIdle || deref(s.CurrentRole) != "reviewer" {
		t.Fatalf("thread b: %+v", s)
	}

	t.Run("stale after a step", func(t *testing.T) {
		chaintest.Step(t, r, b.ID, "reviewer", map[string]any{"$status": "approved"}, "")
		got := listByID(t, chaintest.Open(t, dir))
		if got[b.ID].Status != chain.StatusCompleted {
			t.Fatalf("thread b after approval: %+v", got[b.ID])
		}
		sameListing(t, got, uncached(t, dir))
	})

	t.Run("stale after plain git update-ref", func(t *testing.T) {
		listByID(t, r) // cache holds the completed head
		parent := chaintest.Git(t, dir, "rev-parse", b.ID.Ref()+"^")
		chaintest.Git(t, dir, "update-ref", b.ID.Ref(), parent)
		got := listByID(t, chaintest.Open(t, dir))
		if got[b.ID].Status != chain.StatusIdle || got[b.ID].HeadCommit != parent {
			t.Fatalf("thread b after update-ref: %+v", got[b.ID])
		}
		sameListing(t, got, uncached(t, dir))
	})

	t.Run("stale after a failed attempt", func(t *testing.T) {
		listByID(t, r)
		th, err := r.Thread(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.RecordAttempt(ctx, th, chain.Attempt{Role: "developer", Agent: "x", Error: "boom", StartedAtMs: 1, CompletedAtMs: 2}); err != nil {
			t.Fatal(err)
		}
		got := listByID(t, chaintest.Open(t, dir))
		if got[a.ID].Status != chain.StatusFailed || got[a.ID].Error != "boom" {
			t.Fatalf("thread a after a failed attempt: %+v", got[a.ID])
		}
		sameListing(t, got, uncached(t, dir))
	})

	t.Run("deleted thread and deleted cache", func(t *testing.T) {
		listByID(t, r)
		chaintest.Git(t, dir, "update-ref", "-d", a.ID.Ref())
		got := listByID(t, chaintest.Open(t, dir))
		if _, ok := got[a.ID]; ok {
			t.Fatal("a deleted thread is still listed")
		}
		if err := os.RemoveAll(filepath.Join(dir, ".git", "uwf")); err != nil {
			t.Fatal(err)
		}
		sameListing(t, listByID(t, chaintest.Open(t, dir)), got)
	})

	t.Run("damaged cache", func(t *testing.T) {
		want := listByID(t, r)
		data, err := os.ReadFile(cachePath)
		if err != nil {
			t.Fatal(err)
		}
		for i := len(data) / 2; i < len(data); i++ {
			if data[i] == '\t' {
				data[i+1] ^= 0x01 // flip a bit in a record: its check fails
				break
			}
		}
		if err := os.WriteFile(cachePath, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sameListing(t, listByID(t, chaintest.Open(t, dir)), want)
		if err := os.WriteFile(cachePath, []byte("garbage\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		sameListing(t, listByID(t, chaintest.Open(t, dir)), want)
	})

	t.Run("running comes from the lock", func(t *testing.T) {
		c, err := r.StartThread(ctx, info, "task c", dir)
		if err != nil {
			t.Fatal(err)
		}
		listByID(t, r)
		other := chaintest.Open(t, dir)
		unlock, err := other.LockThread(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := listByID(t, chaintest.Open(t, dir)); got[c.ID].Status != chain.StatusRunning {
			t.Errorf("locked thread: %+v", got[c.ID])
		}
		unlock()
		if got := listByID(t, chaintest.Open(t, dir)); got[c.ID].Status != chain.StatusIdle {
			t.Errorf("unlocked thread: %+v", got[c.ID])
		}
	})
}

func TestSummaryCacheConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	var ids []chain.ThreadID
	for i := 0; i < 6; i++ {
		th, err := r.StartThread(ctx, info, "task", dir)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, th.ID)
	}
	os.RemoveAll(filepath.Join(dir, ".git", "uwf", "cache"))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			repo, err := chain.Open(ctx, dir, chain.Options{Env: chaintest.GitEnv()})
			if err != nil {
				errs <- err
				return
			}
			for k := 0; k < 5; k++ {
				if _, err := repo.List(ctx, chain.ListOptions{All: true}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// A writer that moves a thread while the others list.
	chaintest.Step(t, r, ids[0], "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := listByID(t, chaintest.Open(t, dir))
	sameListing(t, got, uncached(t, dir))
	if got[ids[0]].Status != chain.StatusIdle || deref(got[ids[0]].CurrentRole) != "reviewer" {
		t.Fatalf("moved thread: %+v", got[ids[0]])
	}
	// Leftover temporary files would mean a writer failed half-way.
	matches, _ := filepath.Glob(filepath.Join(dir, ".git", "uwf", "cache", ".tmp-*"))
	if len(matches) > 0 {
		t.Fatalf("temporary files left: %v", matches)
	}
}

// List reads the refs in-process from packed-refs and loose files; it
// agrees with an uncached listing whatever the refs' layout and wherever
// it runs from (a linked worktree, a bare clone).
func TestListRefLayouts(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	var ids []chain.ThreadID
	for _, p := range []string{"a", "b", "c"} {
		th, err := r.StartThread(ctx, info, "task "+p, dir)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, th.ID)
	}
	chaintest.Step(t, r, ids[0], "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
	before := listByID(t, chaintest.Open(t, dir))

	chaintest.Git(t, dir, "pack-refs", "--all")
	sameListing(t, listByID(t, chaintest.Open(t, dir)), before)

	// A loose ref over a packed one, and a deleted packed one.
	chaintest.Step(t, r, ids[1], "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
	chaintest.Git(t, dir, "update-ref", "-d", ids[2].Ref())
	got := listByID(t, chaintest.Open(t, dir))
	if _, ok := got[ids[2]]; ok || len(got) != 2 || deref(got[ids[1]].CurrentRole) != "reviewer" {
		t.Fatalf("after a step and a deletion: %+v", got)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	chaintest.Git(t, dir, "worktree", "add", "-q", wt)
	sameListing(t, listByID(t, chaintest.Open(t, wt)), got)
	sameListing(t, got, uncached(t, dir))

	bare := filepath.Join(t.TempDir(), "bare.git")
	chaintest.Git(t, dir, "clone", "-q", "--bare", dir, bare)
	chaintest.Git(t, dir, "push", "-q", bare, "refs/uwf/*:refs/uwf/*")
	sameListing(t, listByID(t, chaintest.Open(t, bare)), got)
}
