package chain_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// view is everything a chain walk shows: the entries as Entry reads them
// from git, `thread steps` and `thread read`.
type view struct {
	entries []string
	steps   string
	read    string
}

func walk(t *testing.T, dir string, id chain.ThreadID) view {
	t.Helper()
	return walkWith(t, dir, id, nil)
}

// walkWith is walk, with set (if not nil) called on the fresh Repo first.
func walkWith(t *testing.T, dir string, id chain.ThreadID, set func(*chain.Repo)) view {
	t.Helper()
	ctx := context.Background()
	r := chaintest.Open(t, dir) // a fresh Repo is a fresh process
	if set != nil {
		set(r)
	}
	th, err := r.Thread(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := r.Chain(ctx, th.Head.Commit)
	if err != nil {
		t.Fatal(err)
	}
	var v view
	for _, e := range entries {
		// Entry reads the commit from git, never from the cache.
		fromGit, err := r.Entry(ctx, e.Commit)
		if err != nil {
			t.Fatal(err)
		}
		_, off := e.Time.Zone()
		_, wantOff := fromGit.Time.Zone()
		if e.Commit != fromGit.Commit || e.Parent != fromGit.Parent || e.Tree != fromGit.Tree || !e.Time.Equal(fromGit.Time) ||
			off != wantOff || e.Kind != fromGit.Kind || !reflect.DeepEqual(e.Node, fromGit.Node) ||
			!reflect.DeepEqual(e.Start, fromGit.Start) || !reflect.DeepEqual(e.Step, fromGit.Step) || !reflect.DeepEqual(e.Cancel, fromGit.Cancel) {
			t.Fatalf("entry %s differs from git:\n got %+v\nwant %+v", e.Commit, e, fromGit)
		}
		out, err := r.Output(e)
		if err != nil {
			t.Fatal(err)
		}
		want, err := r.Output(fromGit)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(out, want) {
			t.Fatalf("output of %s: got %v, want %v", e.Commit, out, want)
		}
		status, err := r.OutputStatus(e)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := out["$status"].(string); status != want {
			t.Fatalf("status of %s: got %q, want %q", e.Commit, status, want)
		}
		v.entries = append(v.entries, e.Commit.String())
	}
	steps, err := r.Steps(ctx, th)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	v.steps = string(js)
	if v.read, err = r.Read(ctx, th, chain.ReadOptions{Quota: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	return v
}

func sameView(t *testing.T, got, want view) {
	t.Helper()
	if !reflect.DeepEqual(got.entries, want.entries) || got.steps != want.steps || got.read != want.read {
		t.Fatalf("views differ:\n got %+v\nwant %+v", got, want)
	}
}

// entryCacheFile returns the one entry cache file of dir.
func entryCacheFile(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, ".git", "uwf", "cache", "entries", "*"))
	if err != nil || len(files) != 1 {
		t.Fatalf("entry cache files: %v %v", files, err)
	}
	return files[0]
}

func cacheLines(t *testing.T, path string) (valid, bad int) {
	t.Helper()
	valid, bad, current, err := chain.EntryCacheLines(path)
	if err != nil || !current {
		t.Fatalf("%s: current header %v, err %v", path, current, err)
	}
	return valid, bad
}

// longThread starts a thread and adds n steps, cancelled at the end.
func longThread(t *testing.T, n int) (string, chain.ThreadID) {
	t.Helper()
	ctx := context.Background()
	dir, r, info := setup(t)
	th, err := r.StartThread(ctx, info, "task with\ttabs and \"quotes\"\nand lines", dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s\t" + strings.Repeat("x", i)}, "body\n\twith tabs")
		} else {
			chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "rejected", "comments": "again"}, "")
		}
	}
	th, err = r.Thread(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Cancel(ctx, th, "enough"); err != nil {
		t.Fatal(err)
	}
	return dir, th.ID
}

func TestEntryCache(t *testing.T) {
	dir, id := longThread(t, 6)
	cacheDir := filepath.Join(dir, ".git", "uwf", "cache", "entries")
	os.RemoveAll(cacheDir)
	want := walk(t, dir, id) // every entry from git
	path := entryCacheFile(t, dir)
	if valid, bad := cacheLines(t, path); valid != 8 || bad != 0 {
		t.Fatalf("after a cold walk: %d valid, %d bad lines; want 8, 0", valid, bad)
	}
	sameView(t, walk(t, dir, id), want) // every entry from the cache

	t.Run("deleted", func(t *testing.T) {
		os.RemoveAll(cacheDir)
		sameView(t, walk(t, dir, id), want)
		if valid, _ := cacheLines(t, path); valid != 8 {
			t.Fatalf("rebuilt file has %d records, want 8", valid)
		}
	})
	t.Run("corrupt record and torn tail", func(t *testing.T) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		lines[3] = strings.Replace(lines[3], "\t", "\tx", 1) // damaged, same length class
		damaged := strings.Join(lines, "") + "0123456789abcdef\ttorn"
		if err := os.WriteFile(path, []byte(damaged), 0o644); err != nil {
			t.Fatal(err)
		}
		if valid, bad := cacheLines(t, path); valid != 7 || bad != 2 {
			t.Fatalf("damaged file: %d valid, %d bad; want 7, 2", valid, bad)
		}
		sameView(t, walk(t, dir, id), want)
		// The damaged record was read from git again and appended after
		// the torn tail, which was ended first.
		if valid, bad := cacheLines(t, path); valid != 8 || bad != 2 {
			t.Fatalf("after the walk: %d valid, %d bad; want 8, 2", valid, bad)
		}
		sameView(t, walk(t, dir, id), want)
	})
	t.Run("older format", func(t *testing.T) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		old := strings.Replace(string(data), "uwf-entry-cache 4\n", "uwf-entry-cache 3\n", 1)
		if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		sameView(t, walk(t, dir, id), want)
		if valid, bad := cacheLines(t, path); valid != 8 || bad != 0 {
			t.Fatalf("rewritten file: %d valid, %d bad; want 8, 0", valid, bad)
		}
	})
	t.Run("garbage file", func(t *testing.T) {
		if err := os.WriteFile(path, []byte("not a cache"), 0o644); err != nil {
			t.Fatal(err)
		}
		sameView(t, walk(t, dir, id), want)
		sameView(t, walk(t, dir, id), want)
	})
}

func TestEntryCacheConcurrentWriters(t *testing.T) {
	dir, id := longThread(t, 4)
	want := walk(t, dir, id)
	for round := 0; round < 3; round++ {
		os.RemoveAll(filepath.Join(dir, ".git", "uwf", "cache", "entries"))
		var wg sync.WaitGroup
		views := make([]view, 6)
		for i := range views {
			wg.Add(1)
			go func() {
				defer wg.Done()
				views[i] = walk(t, dir, id)
			}()
		}
		wg.Wait()
		for _, v := range views {
			sameView(t, v, want)
		}
		path := entryCacheFile(t, dir)
		if valid, bad := cacheLines(t, path); valid < 6 || bad != 0 {
			t.Fatalf("round %d: %d valid, %d bad lines", round, valid, bad)
		}
		sameView(t, walk(t, dir, id), want)
	}
}

// A new step adds one record; the older ones are reused.
func TestEntryCacheAppendsNewSteps(t *testing.T) {
	dir, r, th := startThread(t)
	walk(t, dir, th.ID)
	path := entryCacheFile(t, dir)
	for i := 1; i <= 3; i++ {
		reviewRound(t, r, th.ID, "s", "b")
		walk(t, dir, th.ID)
		if valid, bad := cacheLines(t, path); valid != 1+2*i || bad != 0 {
			t.Fatalf("after %d rounds: %d valid, %d bad", i, valid, bad)
		}
	}
}

// A small body is kept in its record; a large one is read from git when it
// is shown, so records stay small.
func TestEntryCacheBodies(t *testing.T) {
	dir, r, th := startThread(t)
	large := strings.Repeat("a long line of the deliverable\n", 400)
	chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, large)
	chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "rejected", "comments": "c"}, "small\tbody \"quoted\"")
	want := walk(t, dir, th.ID)
	if !strings.Contains(want.read, "a long line") || !strings.Contains(want.read, "small\tbody") {
		t.Fatalf("read lacks the bodies:\n%s", want.read)
	}
	path := entryCacheFile(t, dir)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "a long line") || !strings.Contains(string(data), `small\tbody \"quoted\"`) {
		t.Fatalf("cache file holds the large body or lacks the small one:\n%s", data)
	}
	sameView(t, walk(t, dir, th.ID), want)
}
