package chain_test

import (
	"context"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// sameThread fails unless got is the thread want (read from git).
func sameThread(t *testing.T, got, want *chain.Thread) {
	t.Helper()
	g, w := *got.Head, *want.Head
	_, goff := g.Time.Zone()
	_, woff := w.Time.Zone()
	if got.ID != want.ID || got.StartAlias != want.StartAlias || got.Start != want.Start ||
		g.Commit != w.Commit || g.Parent != w.Parent || g.Tree != w.Tree || !g.Time.Equal(w.Time) || goff != woff ||
		g.Kind != w.Kind || !reflect.DeepEqual(g.Node, w.Node) || !reflect.DeepEqual(g.Start, w.Start) ||
		!reflect.DeepEqual(g.Step, w.Step) || !reflect.DeepEqual(g.Cancel, w.Cancel) {
		t.Fatalf("thread differs:\n got %+v head %+v\nwant %+v head %+v", got, g, want, w)
	}
	// The decoded workflows hold compiled templates and conditions: compare
	// what they describe.
	gw, ww := *got.Workflow, *want.Workflow
	gw.Workflow, ww.Workflow = nil, nil
	if !reflect.DeepEqual(gw, ww) || !reflect.DeepEqual(got.Workflow.Workflow.Document(), want.Workflow.Workflow.Document()) {
		t.Fatalf("workflow differs:\n got %+v\nwant %+v", got.Workflow, want.Workflow)
	}
}

// cachedThread reads a thread through CachedThread in a fresh process and
// checks it against Thread; it reports whether it came from the caches
// (no object of the repository was needed).
func cachedThread(t *testing.T, dir string, id chain.ThreadID) {
	t.Helper()
	ctx := context.Background()
	want, err := chaintest.Open(t, dir).Thread(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	r := chaintest.Open(t, dir)
	got, err := r.CachedThread(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	sameThread(t, got, want)
	if _, err := r.Steps(ctx, got); err != nil { // fills the entry cache
		t.Fatal(err)
	}
}

// fromCacheAlone reports whether CachedThread gets the thread without the
// repository's objects: it hides the object database for the call.
func fromCacheAlone(t *testing.T, dir string, id chain.ThreadID) bool {
	t.Helper()
	r := chaintest.Open(t, dir)
	objects := filepath.Join(dir, ".git", "objects")
	if err := os.Rename(objects, objects+".hidden"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.Rename(objects+".hidden", objects); err != nil {
			t.Fatal(err)
		}
	}()
	_, err := r.CachedThread(context.Background(), id)
	return err == nil
}

func TestCachedThread(t *testing.T) {
	ctx := context.Background()
	dir, id := longThread(t, 3)
	cache := filepath.Join(dir, ".git", "uwf", "cache")
	os.RemoveAll(cache)

	cachedThread(t, dir, id) // from git; writes the hint and the workflow cache
	if !fromCacheAlone(t, dir, id) {
		t.Fatal("a warm thread still needed objects")
	}
	cachedThread(t, dir, id)

	// A fork shares the start node and so the entry cache file.
	r := chaintest.Open(t, dir)
	th, err := r.Thread(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := r.Chain(ctx, th.Head.Commit)
	if err != nil {
		t.Fatal(err)
	}
	fork, err := r.Fork(ctx, entries[2].Commit)
	if err != nil {
		t.Fatal(err)
	}
	cachedThread(t, dir, fork.ID)
	if !fromCacheAlone(t, dir, fork.ID) {
		t.Fatal("a warm fork still needed objects")
	}
	// A new step: the head has no record yet, so it is read from git.
	chaintest.Step(t, r, fork.ID, "reviewer", map[string]any{"$status": "rejected", "comments": "c"}, "")
	if fromCacheAlone(t, dir, fork.ID) {
		t.Fatal("a head the entry cache does not hold came from nowhere")
	}
	cachedThread(t, dir, fork.ID)
	if !fromCacheAlone(t, dir, fork.ID) {
		t.Fatal("the new head was not cached")
	}

	// Another thread, started with the same task, so a different start
	// commit with the same start node.
	other, err := r.StartThread(ctx, th.Workflow, th.Start.Prompt, th.Start.Cwd)
	if err != nil {
		t.Fatal(err)
	}
	cachedThread(t, dir, other.ID)

	hint := filepath.Join(cache, "threads", string(id))
	workflows, err := filepath.Glob(filepath.Join(cache, "workflows", "*"))
	if err != nil || len(workflows) != 1 {
		t.Fatalf("workflow cache files: %v %v", workflows, err)
	}
	for _, tc := range []struct {
		name string
		file string
		data string
	}{
		{"hint names another start", hint, "0123456789abcdef0123456789abcdef01234567\n"},
		{"hint damaged", hint, "xyz"},
		{"hint empty", hint, ""},
		{"workflow cache damaged", workflows[0], "uwf-workflow-cache 1\n{\"alias\":\"X\"}\n0\n"},
		{"workflow cache of another format", workflows[0], "uwf-workflow-cache 0\n{}\n0\n"},
		{"workflow cache truncated", workflows[0], "uwf-workflow-cache 1\n{\"al"},
		{"workflow cache checksummed but wrong", workflows[0], "uwf-workflow-cache 1\n{}\n" + crc("{}") + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(tc.file, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if fromCacheAlone(t, dir, id) {
				t.Fatal("a damaged cache served the thread")
			}
			cachedThread(t, dir, id) // rewrites it
			if !fromCacheAlone(t, dir, id) {
				t.Fatal("the cache was not repaired")
			}
		})
	}
	t.Run("deleted", func(t *testing.T) {
		os.RemoveAll(cache)
		cachedThread(t, dir, id)
		cachedThread(t, dir, id)
	})
	t.Run("unknown thread", func(t *testing.T) {
		if _, err := chaintest.Open(t, dir).CachedThread(ctx, chain.NewThreadID(r.Now())); err == nil {
			t.Fatal("no error for an unknown thread")
		}
	})
}

func crc(s string) string {
	return strconv.FormatUint(uint64(crc32.Checksum([]byte(s), crc32.MakeTable(crc32.Castagnoli))), 16)
}
