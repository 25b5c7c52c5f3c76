package chain_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// sortedLines returns the lines of a file, sorted (records are appended in
// walk order, which differs between the ways of walking).
func sortedLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	slices.Sort(lines)
	return lines
}

// TestWalkBatch: a cold chain walk read through git rev-list and cat-file
// gives what the walk one commit at a time gives (entries, outputs,
// `thread steps`, `thread read`) and writes the same cache records, from
// the head or from wherever the cache stops; a large body is left out of
// its record either way.
func TestWalkBatch(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th, err := r.StartThread(ctx, info, "task with\ttabs", dir)
	if err != nil {
		t.Fatal(err)
	}
	large := strings.Repeat("a long line of the deliverable\n", 400)
	step := func(i int) {
		body := "body\n\twith tabs"
		if i == 2 {
			body = large
		}
		if i%2 == 0 {
			chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s\t" + strings.Repeat("x", i)}, body)
		} else {
			chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "rejected", "comments": "again"}, "")
		}
	}
	for i := 0; i < 4; i++ {
		step(i)
	}
	entriesDir := filepath.Join(dir, ".git", "uwf", "cache", "entries")
	// The first 5 commits are cached by a walk one commit at a time.
	os.RemoveAll(entriesDir)
	oneByOne := func(r *chain.Repo) { chain.SetWalkBatchAfter(r, 1<<30) }
	walkWith(t, dir, th.ID, oneByOne)
	partPath := entryCacheFile(t, dir)
	cachedPart, err := os.ReadFile(partPath)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4; i < 9; i++ {
		step(i)
	}
	head, err := r.Thread(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The batch settles the whole chain by itself.
	commits, err := chain.WalkBatch(ctx, r, head.Head.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if len(commits) != 10 {
		t.Fatalf("the batch read %d commits, want 10", len(commits))
	}

	os.RemoveAll(entriesDir)
	want := walkWith(t, dir, th.ID, oneByOne)
	wantFile := sortedLines(t, entryCacheFile(t, dir))
	if len(want.entries) != 10 || !strings.Contains(want.read, "a long line") {
		t.Fatalf("walk one by one: %d entries, read:\n%s", len(want.entries), want.read)
	}
	type walkCase struct {
		name   string
		after  int
		chunk  int    // commits per request of the batch; 0: the default
		cached []byte // the cache file before the walk
		viaGit bool   // read through rev-list and cat-file, not the packs
	}
	cases := []walkCase{
		{"from the head", -1, 0, nil, false},
		{"after two commits", 2, 0, nil, false},
		{"down to the cached commits", -1, 0, cachedPart, false},
		{"never", 1 << 30, 0, nil, false},
		// Chunks that split the chain: the start entry falls in the
		// last, partial chunk, or alone in a chunk.
		{"in chunks of three", -1, 3, nil, false},
		{"in chunks of one", -1, 1, nil, false},
		{"after two commits, in chunks of four", 2, 4, nil, false},
		{"down to the cached commits, in chunks of two", -1, 2, cachedPart, false},
	}
	for _, tt := range cases[:len(cases):len(cases)] {
		tt.name, tt.viaGit = tt.name+", through git", true
		cases = append(cases, tt)
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(entriesDir)
			if tt.cached != nil {
				if err := os.MkdirAll(entriesDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(partPath, tt.cached, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := walkWith(t, dir, th.ID, func(r *chain.Repo) {
				chain.SetWalkBatchAfter(r, tt.after)
				chain.SetWalkBatchChunk(r, tt.chunk)
				chain.SetWalkBatchViaGit(r, tt.viaGit)
			})
			sameView(t, got, want)
			path := entryCacheFile(t, dir)
			if valid, bad := cacheLines(t, path); valid != 10 || bad != 0 {
				t.Errorf("cache file: %d valid, %d bad lines; want 10, 0", valid, bad)
			}
			if got := sortedLines(t, path); !slices.Equal(got, wantFile) {
				t.Errorf("cache file differs from the one the walk one by one wrote:\n got %q\nwant %q", got, wantFile)
			}
			sameView(t, walk(t, dir, th.ID), want) // from the cache
		})
	}
	// git's readers follow refs/replace unless told not to; go-git, which
	// reads the same objects one by one, never does. A replace ref must
	// not make the batch read another commit than the walk one by one.
	t.Run("a replace ref is not followed", func(t *testing.T) {
		mid := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", th.ID.Ref()+"~3"))
		// The same tree, parent and message (trailers and all), another
		// commit time.
		msg := chaintest.Git(t, dir, "log", "-1", "--format=%B", mid)
		cmd := exec.Command("git", "commit-tree", mid+"^{tree}", "-p", mid+"^", "-m", msg)
		cmd.Dir, cmd.Env = dir, append(chaintest.GitEnv(), "GIT_COMMITTER_DATE=2001-02-03T04:05:06Z")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git commit-tree: %v", err)
		}
		fake := strings.TrimSpace(string(out))
		chaintest.Git(t, dir, "replace", mid, fake)
		defer chaintest.Git(t, dir, "replace", "-d", mid)
		for _, viaGit := range []bool{false, true} {
			os.RemoveAll(entriesDir)
			got := walkWith(t, dir, th.ID, func(r *chain.Repo) {
				chain.SetWalkBatchAfter(r, -1)
				chain.SetWalkBatchViaGit(r, viaGit)
			})
			sameView(t, got, want)
			if gotFile := sortedLines(t, entryCacheFile(t, dir)); !slices.Equal(gotFile, wantFile) {
				t.Errorf("through git %v: cache file differs from the one the walk one by one wrote", viaGit)
			}
		}
	})
}

// TestRevListThread: the commits a batch walk reads are the thread's first
// parents whatever the page size, and stop before a commit that is not a
// thread commit (a ref moved onto code history), which the walk then
// reports as the walk one commit at a time does.
func TestRevListThread(t *testing.T) {
	ctx := context.Background()
	dir, r, th := startThread(t)
	for i := 0; i < 3; i++ {
		reviewRound(t, r, th.ID, "s", "b")
	}
	head := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", th.ID.Ref()))
	want := strings.Fields(chaintest.Git(t, dir, "rev-list", "--first-parent", head))
	for _, page := range []int{1, 2, 3, 7, 4096} {
		got, err := chain.RevListThread(ctx, r, gitobj.NewHash(head), page)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range got {
			ids = append(ids, h.String())
		}
		if !slices.Equal(ids, want) {
			t.Errorf("page %d: got %v, want %v", page, ids, want)
		}
	}

	// A thread commit whose parent is a code commit: the list stops before
	// the code commit, and both walks fail the same way.
	code := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", "HEAD"))
	msg := chaintest.Git(t, dir, "log", "-1", "--format=%B", head)
	forged := strings.TrimSpace(chaintest.Git(t, dir, "commit-tree", head+"^{tree}", "-p", code, "-m", msg))
	got, err := chain.RevListThread(ctx, r, gitobj.NewHash(forged), 4096)
	if err != nil || len(got) != 1 || got[0].String() != forged {
		t.Fatalf("rev-list of the forged commit: %v, %v; want it alone", got, err)
	}
	var errs []string
	for _, way := range []struct {
		after  int
		viaGit bool
	}{{-1, false}, {-1, true}, {1 << 30, false}} {
		r := chaintest.Open(t, dir)
		chain.SetWalkBatchAfter(r, way.after)
		chain.SetWalkBatchViaGit(r, way.viaGit)
		_, err := r.Chain(ctx, gitobj.NewHash(forged))
		if err == nil {
			t.Fatalf("walk of the forged chain (batch after %d, through git %v) succeeded", way.after, way.viaGit)
		}
		errs = append(errs, err.Error())
	}
	if errs[0] != errs[2] || errs[1] != errs[2] {
		t.Errorf("the walks fail differently:\n batch: %s\n batch through git: %s\n one by one: %s", errs[0], errs[1], errs[2])
	}
}

// TestWalkBatchPastStart: when rev-list lists commits past the start
// entry (a start commit with a thread commit for parent, as a hand-made
// history can have), the batch walk stops at the start entry as the walk
// one commit at a time does, wherever the start falls in a chunk.
func TestWalkBatchPastStart(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	under, err := r.StartThread(ctx, info, "the thread below", dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		chaintest.Step(t, r, under.ID, "developer", map[string]any{"$status": "review_needed", "summary": "below"}, "b")
	}
	th, err := r.StartThread(ctx, info, "the thread on top", dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "top"}, "body")
	}
	// Copy the thread on top, its start commit now a child of the head
	// of the thread below.
	parent := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", under.ID.Ref()))
	commits := strings.Fields(chaintest.Git(t, dir, "rev-list", "--reverse", "--first-parent", th.ID.Ref()))
	for _, c := range commits {
		msg := chaintest.Git(t, dir, "log", "-1", "--format=%B", c)
		cmd := exec.Command("git", "commit-tree", c+"^{tree}", "-p", parent, "-m", msg)
		cmd.Dir, cmd.Env = dir, chaintest.GitEnv()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git commit-tree: %v", err)
		}
		parent = strings.TrimSpace(string(out))
	}
	chaintest.Git(t, dir, "update-ref", th.ID.Ref(), parent)

	entriesDir := filepath.Join(dir, ".git", "uwf", "cache", "entries")
	os.RemoveAll(entriesDir)
	want := walkWith(t, dir, th.ID, func(r *chain.Repo) { chain.SetWalkBatchAfter(r, 1<<30) })
	if len(want.entries) != 5 {
		t.Fatalf("walk one by one: %d entries, want 5", len(want.entries))
	}
	for _, chunk := range []int{0, 1, 2, 3, 4, 5, 6} {
		for _, viaGit := range []bool{false, true} {
			os.RemoveAll(entriesDir)
			got := walkWith(t, dir, th.ID, func(r *chain.Repo) {
				chain.SetWalkBatchAfter(r, -1)
				chain.SetWalkBatchChunk(r, chunk)
				chain.SetWalkBatchViaGit(r, viaGit)
			})
			sameView(t, got, want)
		}
	}
}

// TestReadWritesCache: a cold Read or Steps returns only once the entry
// cache holds every commit of the chain (the records are written while
// they render).
func TestReadWritesCache(t *testing.T) {
	ctx := context.Background()
	dir, r, th := startThread(t)
	for i := 0; i < 20; i++ {
		chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "body")
	}
	entriesDir := filepath.Join(dir, ".git", "uwf", "cache", "entries")
	for _, verb := range []string{"read", "steps"} {
		os.RemoveAll(entriesDir)
		r := chaintest.Open(t, dir)
		chain.SetWalkBatchAfter(r, -1)
		t0, err := r.Thread(ctx, th.ID)
		if err != nil {
			t.Fatal(err)
		}
		if verb == "read" {
			_, err = r.Read(ctx, t0, chain.ReadOptions{})
		} else {
			_, err = r.Steps(ctx, t0)
		}
		if err != nil {
			t.Fatal(err)
		}
		if valid, bad := cacheLines(t, entryCacheFile(t, dir)); valid != 21 || bad != 0 {
			t.Errorf("%s: cache file has %d valid, %d bad lines; want 21, 0", verb, valid, bad)
		}
	}
}
