package uwfsync_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

// gitRuns counts the git commands named cmd (e.g. "fetch", "ls-remote")
// recorded in a GIT_TRACE file.
func gitRuns(t *testing.T, trace, cmd string) int {
	t.Helper()
	b, err := os.ReadFile(trace)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "built-in: git "+cmd+" ") {
			n++
		}
	}
	return n
}

// TestFirstFetchSkipsListing: a clone with no remote-tracking git-uwf ref
// fetches the whole namespace at once, without asking the remote for its
// refs first; once it has them, a fetch with nothing new asks and fetches
// nothing. A first fetch from a remote with no git-uwf ref is not an error.
func TestFirstFetchSkipsListing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a := chaintest.Open(t, repos.A)

	b, trace := openTraced(t, repos.B)
	rep, err := uwfsync.Fetch(ctx, b, origin)
	if err != nil {
		t.Fatalf("first fetch from a remote without threads: %v", err)
	}
	if changed := rep.Changed(); len(changed) != 0 {
		t.Errorf("fetch from a remote without threads changed %+v", changed)
	}

	th := start(t, a, "task")
	mustSync(t, a)
	before := [2]int{gitRuns(t, trace, "ls-remote"), gitRuns(t, trace, "fetch")}
	rep = mustFetch(t, b)
	if res := result(t, rep, th.ID.Ref()); res.Kind != uwfsync.KindNew || res.New != th.Head.Commit.String() {
		t.Errorf("%s = %+v, want new at %s", th.ID, res, th.Head.Commit)
	}
	if got := gitRuns(t, trace, "ls-remote") - before[0]; got != 0 {
		t.Errorf("first fetch ran git ls-remote %d times, want 0", got)
	}
	if got := gitRuns(t, trace, "fetch") - before[1]; got != 1 {
		t.Errorf("first fetch ran git fetch %d times, want 1", got)
	}

	before = [2]int{gitRuns(t, trace, "ls-remote"), gitRuns(t, trace, "fetch")}
	if changed := mustFetch(t, b).Changed(); len(changed) != 0 {
		t.Errorf("second fetch changed %+v", changed)
	}
	if got := gitRuns(t, trace, "ls-remote") - before[0]; got != 1 {
		t.Errorf("fetch with remote-tracking refs ran git ls-remote %d times, want 1", got)
	}
	if got := gitRuns(t, trace, "fetch") - before[1]; got != 0 {
		t.Errorf("fetch with nothing new ran git fetch %d times, want 0", got)
	}
}

// TestTrackingRefsWithoutReflog: fetch, push and the prune of a ref gone
// from the remote create no reflog for the remote-tracking refs they write
// (where git would make one for any other ref under refs/remotes/), and a
// reflog made earlier by a plain git fetch is still appended to.
func TestTrackingRefsWithoutReflog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	th := start(t, a, "task")
	if rep, err := uwfsync.Push(ctx, a, origin, uwfsync.PushOptions{}); err != nil || rep.Failed() {
		t.Fatalf("push: %v %+v", err, rep)
	}
	plain := start(t, a, "fetched by plain git first")
	mustSync(t, a)
	// B's plain git fetch makes a reflog for plain's remote-tracking ref.
	chaintest.Git(t, repos.B, "fetch", "-q", "origin", "+"+plain.ID.Ref()+":refs/remotes/origin/uwf/threads/"+string(plain.ID))
	mustFetch(t, b)
	step := develop(t, a, plain.ID, "moved on")
	mustSync(t, a)
	mustFetch(t, b)
	chaintest.Git(t, repos.Remote, "update-ref", "-d", th.ID.Ref())
	mustFetch(t, b) // prunes th's remote-tracking ref

	logs := func(dir string) string { return filepath.Join(dir, ".git", "logs", "refs", "remotes", "origin", "uwf") }
	for dir, want := range map[string][]string{
		repos.A: nil,
		repos.B: {"threads/" + string(plain.ID)},
	} {
		var got []string
		_ = filepath.WalkDir(logs(dir), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(logs(dir), path)
				got = append(got, filepath.ToSlash(rel))
			}
			return nil
		})
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: reflogs of remote-tracking git-uwf refs %v, want %v", dir, got, want)
		}
	}
	entries := chaintest.Git(t, repos.B, "reflog", "show", "--format=%H", "refs/remotes/origin/uwf/threads/"+string(plain.ID))
	if lines := strings.Fields(entries); len(lines) != 2 || lines[0] != step.Commit.String() {
		t.Errorf("reflog of %s's remote-tracking ref = %q, want the fetch's move to %s on top of plain git's entry", plain.ID, lines, step.Commit)
	}
	// Any other ref under refs/remotes/ gets a reflog in these repositories.
	chaintest.Git(t, repos.A, "update-ref", "refs/remotes/origin/other", "HEAD")
	if _, err := os.Stat(filepath.Join(repos.A, ".git", "logs", "refs", "remotes", "origin", "other")); err != nil {
		t.Errorf("git logs refs/remotes/ here, so the check above means something: %v", err)
	}
}
