package chain_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// startTrailerOf returns the Uwf-Start trailer of commit ("" when none).
func startTrailerOf(t *testing.T, dir, commit string) string {
	t.Helper()
	return chaintest.Git(t, dir, "log", "-1", "--format=%(trailers:key="+chain.StartTrailer+",valueonly)", commit)
}

// rewriteHeadMessage replaces ref's head commit by one with the same tree and
// parent and the message edit makes of its own, and returns it.
func rewriteHeadMessage(t *testing.T, dir, ref string, edit func(string) string) string {
	t.Helper()
	head := chaintest.Git(t, dir, "rev-parse", ref)
	msg := chaintest.Git(t, dir, "log", "-1", "--format=%B", head)
	c := chaintest.Git(t, dir, "commit-tree", head+"^{tree}", "-p", head+"^", "-m", edit(msg))
	chaintest.Git(t, dir, "update-ref", ref, c)
	return c
}

// startOn starts a thread on branch and plays its developer step, and
// then, when reviewed, a reviewer step that sends it back.
func startOn(t *testing.T, r *chain.Repo, info *chain.WorkflowInfo, dir, prompt, branch string, reviewed bool) *chain.Thread {
	t.Helper()
	th, err := r.StartThreadOn(context.Background(), info, prompt, dir, chain.Code{Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
	if reviewed {
		chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "rejected", "comments": "again"}, "")
	}
	return th
}

// claiming replaces a message's Uwf-Start trailer by one of value.
func claiming(value string) func(string) string {
	return func(m string) string { return withoutStart(m) + "\n" + chain.StartTrailer + ": " + value }
}

var startLine = regexp.MustCompile(`(?m)^` + chain.StartTrailer + `: .*\n?`)

// withoutStart drops the Uwf-Start trailer from a message, as git-uwf wrote
// every commit before the trailer existed.
func withoutStart(msg string) string { return startLine.ReplaceAllString(msg, "") }

// TestStartTrailerWritten checks that every step and cancel commit names
// its chain's start commit and branch, for a thread on a branch, one
// without, a fork, and a chain whose head was written before the trailer.
func TestStartTrailerWritten(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	on := func(branch string) *chain.Thread {
		th, err := r.StartThreadOn(ctx, info, "prompt "+branch, dir, chain.Code{Branch: branch, Commit: strings.Repeat("c", 40)})
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	developer := func(id chain.ThreadID) *chain.Entry {
		return chaintest.Step(t, r, id, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
	}
	reviewer := func(id chain.ThreadID) *chain.Entry {
		return chaintest.Step(t, r, id, "reviewer", map[string]any{"$status": "rejected", "comments": "again"}, "")
	}
	want := func(t *testing.T, commit gitobj.Hash, trailer string) {
		t.Helper()
		if got := startTrailerOf(t, dir, commit.String()); got != trailer {
			t.Errorf("commit %s: %s trailer %q, want %q", commit, chain.StartTrailer, got, trailer)
		}
	}

	t.Run("steps and cancel on a branch", func(t *testing.T) {
		th := on("feat/one")
		root := th.Head.Commit.String()
		want(t, th.Head.Commit, "") // a start commit is its own start
		want(t, developer(th.ID).Commit, root+" feat/one")
		want(t, reviewer(th.ID).Commit, root+" feat/one")
		cur, err := r.Thread(ctx, th.ID)
		if err != nil {
			t.Fatal(err)
		}
		e, err := r.Cancel(ctx, cur, "enough")
		if err != nil {
			t.Fatal(err)
		}
		want(t, e.Commit, root+" feat/one")
	})
	t.Run("no branch", func(t *testing.T) {
		th := on("")
		want(t, developer(th.ID).Commit, th.Head.Commit.String())
	})
	t.Run("a fork names its origin's start", func(t *testing.T) {
		th := on("main")
		first := developer(th.ID)
		fork, err := r.Fork(ctx, first.Commit)
		if err != nil {
			t.Fatal(err)
		}
		want(t, reviewer(fork.ID).Commit, th.Head.Commit.String()+" main")
	})
	t.Run("a head without the trailer is walked", func(t *testing.T) {
		th := on("main")
		developer(th.ID)
		old := rewriteHeadMessage(t, dir, th.ID.Ref(), withoutStart)
		if startTrailerOf(t, dir, old) != "" {
			t.Fatal("the rewritten head still has the trailer")
		}
		want(t, reviewer(th.ID).Commit, th.Head.Commit.String()+" main")
	})
	t.Run("a branch the trailer cannot carry", func(t *testing.T) {
		th := on(strings.Repeat("b", 480)) // kept in Uwf-Branch, too long beside the commit
		want(t, developer(th.ID).Commit, "")
		got := listByID(t, chaintest.Open(t, dir))[th.ID]
		if got.StartCommit != th.Head.Commit.String() || got.Branch != strings.Repeat("b", 480) {
			t.Errorf("listed start %s branch %q, want %s and the long branch", got.StartCommit, got.Branch, th.Head.Commit)
		}
	})
}

// TestListReadsStartTrailer checks that a cold listing takes a thread's
// start from its head's Uwf-Start trailer (a claim it trusts, as it trusts
// the commits git-uwf wrote: sync checks the claims of fetched chains),
// walks when the trailer is missing or unreadable, and that the batch and
// usual paths agree in each case.
func TestListReadsStartTrailer(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	start := func(prompt, branch string) *chain.Thread { return startOn(t, r, info, dir, prompt, branch, true) }
	other := start("other", "elsewhere")
	tests := []struct {
		name string
		edit func(string) string
		// claimed is true when the listing must show other's start.
		claimed bool
	}{
		{"as written", func(m string) string { return m }, false},
		{"no trailer", withoutStart, false},
		{"a claim of another start", claiming(other.Head.Commit.String() + " elsewhere"), true},
		{"an unreadable claim", claiming("not-a-commit elsewhere"), false},
		{"a claim of the zero commit", claiming(strings.Repeat("0", 40)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := start(tt.name, "main")
			rewriteHeadMessage(t, dir, th.ID.Ref(), tt.edit)
			wantStart, wantBranch := th.Head.Commit.String(), "main"
			if tt.claimed {
				wantStart, wantBranch = other.Head.Commit.String(), "elsewhere"
			}
			if err := os.RemoveAll(filepath.Join(dir, ".git", "uwf", "cache")); err != nil {
				t.Fatal(err)
			}
			batch, usual, fellBack, err := chaintest.Open(t, dir).SummariesBothWays(ctx, 512)
			if err != nil {
				t.Fatal(err)
			}
			if fellBack[th.ID] {
				t.Errorf("the batch path left the thread to the usual path")
			}
			if !reflect.DeepEqual(batch[th.ID], usual[th.ID]) {
				t.Errorf("batch and usual differ:\nbatch %+v\nusual %+v", batch[th.ID], usual[th.ID])
			}
			got := listByID(t, chaintest.Open(t, dir))[th.ID]
			if got.StartCommit != wantStart || got.Branch != wantBranch {
				t.Errorf("listed start %s branch %q, want %s %q", got.StartCommit, got.Branch, wantStart, wantBranch)
			}
			if got.Status != chain.StatusIdle {
				t.Errorf("status %s, want idle", got.Status)
			}
			chaintest.Git(t, dir, "update-ref", "-d", th.ID.Ref()) // the next case starts clean
		})
	}
}

// TestCheckStartTrailer checks the rule sync applies to fetched commits.
func TestCheckStartTrailer(t *testing.T) {
	root := gitobj.NewHash(strings.Repeat("ab", 20))
	other := strings.Repeat("cd", 20)
	rootMsg := "start: w — p\n\nUwf-Thread: X\nUwf-Branch: main\n"
	step := func(trailer string) string { return "dev: done\n\nUwf-Thread: X\nUwf-Role: dev\n" + trailer }
	tests := []struct {
		name, msg string
		ok        bool
	}{
		{"none", step(""), true},
		{"right", step("Uwf-Start: " + root.String() + " main\n"), true},
		{"another commit", step("Uwf-Start: " + other + " main\n"), false},
		{"another branch", step("Uwf-Start: " + root.String() + " dev\n"), false},
		{"no branch", step("Uwf-Start: " + root.String() + "\n"), false},
		{"malformed", step("Uwf-Start: main\n"), false},
		{"upper-case hex", step("Uwf-Start: " + strings.ToUpper(root.String()) + " main\n"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := chain.CheckStartTrailer(tt.msg, root, rootMsg)
			if (err == nil) != tt.ok {
				t.Errorf("CheckStartTrailer = %v, want ok %v", err, tt.ok)
			}
		})
	}
	if err := chain.CheckStartTrailer(step("Uwf-Start: "+root.String()+"\n"), root, "start\n\nUwf-Thread: X\n"); err != nil {
		t.Errorf("a root without a branch: %v", err)
	}
}

// TestForkChecksStartClaim: a fork copies the Uwf-Start claim of the commit
// it starts from into its later steps, and listings take it for the fork's
// start, so Fork refuses a commit whose claim names another start or branch
// (one a remote sent and sync refused, left in a remote-tracking ref), and
// forks a commit with a true claim or none.
func TestForkChecksStartClaim(t *testing.T) {
	dir, r, info := setup(t)
	on := func(prompt, branch string) *chain.Thread { return startOn(t, r, info, dir, prompt, branch, false) }
	other := on("other", "elsewhere")
	tests := []struct {
		name string
		edit func(string) string
		ok   bool
	}{
		{"as written", func(m string) string { return m }, true},
		{"no trailer", withoutStart, true},
		{"a claim of another start", claiming(other.Head.Commit.String() + " elsewhere"), false},
		{"a claim of another branch", func(m string) string {
			return startLine.ReplaceAllStringFunc(m, func(l string) string { return strings.Replace(l, " main", " elsewhere", 1) })
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := on(tt.name, "main")
			head := gitobj.NewHash(rewriteHeadMessage(t, dir, th.ID.Ref(), tt.edit))
			refused := chain.StartTrailer
			if tt.ok {
				refused = ""
			}
			wantFork(t, r, head, refused)
		})
	}
}

// wantFork forks head and checks that the fork is made there, or, when
// refused is not "", that Fork refuses with an error containing it.
func wantFork(t *testing.T, r *chain.Repo, head gitobj.Hash, refused string) {
	t.Helper()
	fork, err := r.Fork(context.Background(), head)
	if refused == "" {
		if err != nil {
			t.Fatalf("fork: %v", err)
		}
		if fork.Head.Commit != head {
			t.Errorf("fork at %s, want %s", fork.Head.Commit, head)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), refused) {
		t.Fatalf("fork of a commit with a false claim: %v, want an error containing %q", err, refused)
	}
}
