package chain_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// startCommitOf asks git for the root of ref's first-parent history.
func startCommitOf(t *testing.T, dir, ref string) string {
	t.Helper()
	all := strings.Fields(chaintest.Git(t, dir, "rev-list", "--first-parent", ref))
	return all[len(all)-1]
}

// TestListStartCommits checks the start commit, branch and fork mark of
// every listed thread against git's own answer, through the batch path,
// the go-git path, a cold listing and listings after moves and forks.
func TestListStartCommits(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	start := func(prompt, branch string) *chain.Thread {
		th, err := r.StartThreadOn(ctx, info, prompt, dir, chain.Code{Branch: branch, Commit: strings.Repeat("c", 40)})
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	step := func(id chain.ThreadID, n int) *chain.Entry {
		var e *chain.Entry
		for i := 0; i < n; i++ {
			role, out := "developer", map[string]any{"$status": "review_needed", "summary": fmt.Sprint("s", i)}
			if i%2 == 1 {
				role, out = "reviewer", map[string]any{"$status": "rejected", "comments": "again"}
			}
			e = chaintest.Step(t, r, id, role, out, "")
		}
		return e
	}
	fork := func(commit gitobj.Hash) chain.ThreadID {
		th, err := r.Fork(ctx, commit)
		if err != nil {
			t.Fatal(err)
		}
		return th.ID
	}
	head := func(id chain.ThreadID) gitobj.Hash {
		return gitobj.NewHash(chaintest.Git(t, dir, "rev-parse", id.Ref()))
	}
	alone := start("alone", "main")
	step(alone.ID, 1)
	start("no branch", "")
	start("on a feature branch", "feat/x\ty") // a tab, escaped in the cache
	long := start("long", "main")
	inner := step(long.ID, 3)
	step(long.ID, 2)
	fork(inner.Commit)                  // an inner step
	atHead := fork(head(long.ID))       // the head, not moved
	fromStart := fork(long.Head.Commit) // the start commit
	step(fromStart, 1)

	// check lists with a fresh Repo and compares every thread with git.
	check := func(t *testing.T) map[chain.ThreadID]chain.Summary {
		t.Helper()
		got := listByID(t, chaintest.Open(t, dir))
		byStart := map[string]int{}
		for id := range got {
			byStart[startCommitOf(t, dir, id.Ref())]++
		}
		for id, s := range got {
			want := startCommitOf(t, dir, id.Ref())
			msg := chaintest.Git(t, dir, "log", "-1", "--format=%B", want)
			wantBranch := ""
			if i := strings.Index(msg, chain.BranchTrailer+": "); i >= 0 {
				wantBranch = strings.SplitN(msg[i+len(chain.BranchTrailer)+2:], "\n", 2)[0]
			}
			if s.StartCommit != want || s.Branch != wantBranch || s.Fork != (byStart[want] > 1) {
				t.Errorf("thread %s (%s): start %s branch %q fork %v; want %s %q %v",
					id, s.Prompt, s.StartCommit, s.Branch, s.Fork, want, wantBranch, byStart[want] > 1)
			}
		}
		return got
	}
	cold := func(t *testing.T) map[chain.ThreadID]chain.Summary {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(dir, ".git", "uwf", "cache")); err != nil {
			t.Fatal(err)
		}
		return check(t)
	}

	t.Run("cold", func(t *testing.T) {
		got := cold(t)
		if got[alone.ID].Branch != "main" || got[alone.ID].Fork || !got[atHead].Fork {
			t.Fatalf("the fixture is not what this test needs: %+v", got)
		}
	})
	t.Run("batch and usual paths agree", func(t *testing.T) {
		for _, chunk := range []int{512, 1, 2} {
			batch, usual, _, err := chaintest.Open(t, dir).SummariesBothWays(ctx, chunk)
			if err != nil {
				t.Fatal(err)
			}
			for id := range usual {
				if !reflect.DeepEqual(batch[id], usual[id]) || usual[id].StartCommit != startCommitOf(t, dir, id.Ref()) {
					t.Errorf("chunks of %d, thread %s:\nbatch %+v\nusual %+v", chunk, id, batch[id], usual[id])
				}
			}
		}
	})
	t.Run("warm, after steps", func(t *testing.T) {
		check(t)
		step(alone.ID, 2)
		step(atHead, 1)
		check(t)
	})
	t.Run("warm, a new fork marks its origin", func(t *testing.T) {
		if check(t)[alone.ID].Fork {
			t.Fatal("alone is a fork before it was forked")
		}
		fork(head(alone.ID))
		if !check(t)[alone.ID].Fork {
			t.Fatal("alone is not marked after its fork")
		}
	})
	t.Run("warm, the only other thread gone", func(t *testing.T) {
		lone := start("lone", "")
		other := fork(lone.Head.Commit)
		if !check(t)[lone.ID].Fork {
			t.Fatal("lone is not marked")
		}
		chaintest.Git(t, dir, "update-ref", "-d", other.Ref())
		if check(t)[lone.ID].Fork {
			t.Fatal("lone is still marked once its fork is gone")
		}
	})
	t.Run("a thread on a foreign commit", func(t *testing.T) {
		th := start("foreign", "")
		chaintest.Git(t, dir, "commit", "--allow-empty", "-q", "-m", "one")
		chaintest.Git(t, dir, "commit", "--allow-empty", "-q", "-m", "two\n\nUwf-Branch: nope")
		chaintest.Git(t, dir, "update-ref", th.ID.Ref(), chaintest.Git(t, dir, "rev-parse", "HEAD"))
		if err := os.RemoveAll(filepath.Join(dir, ".git", "uwf", "cache")); err != nil {
			t.Fatal(err)
		}
		// Both paths stop at the first commit without an Uwf-Thread
		// trailer: a ref that is no thread costs no walk of the code
		// history below it, and gets no start commit.
		batch, usual, _, err := chaintest.Open(t, dir).SummariesBothWays(ctx, 512)
		if err != nil {
			t.Fatal(err)
		}
		for name, got := range map[string]chain.Summary{"batch": batch[th.ID], "usual": usual[th.ID],
			"list": listByID(t, chaintest.Open(t, dir))[th.ID]} {
			if got.Status != chain.StatusFailed || got.StartCommit != "" || got.Branch != "" || got.Fork {
				t.Errorf("%s: foreign head: %+v", name, got)
			}
		}
	})
}
