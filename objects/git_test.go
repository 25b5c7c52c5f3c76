package objects

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// git runs git in dir and returns its trimmed stdout.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2024-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// newGitRepo creates a repository and returns its work tree and git dir.
func newGitRepo(t testing.TB) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	return dir, filepath.Join(dir, ".git")
}

func openDir(t testing.TB, gitDir string) *Store {
	t.Helper()
	s, err := OpenDir(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// commitNodes writes a commit whose tree holds nodes/<ALIAS> for each ref
// (plus a nested copy to exercise recursion) and returns it.
func commitNodes(t testing.TB, s *Store, parent gitobj.Hash, refs ...Ref) gitobj.Hash {
	t.Helper()
	st := s.Storer()
	storeObj := func(o interface {
		Encode(gitobj.EncodedObject) error
	}) gitobj.Hash {
		enc := st.NewEncodedObject()
		if err := o.Encode(enc); err != nil {
			t.Fatal(err)
		}
		h, err := st.SetEncodedObject(enc)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	var entries []gitobj.TreeEntry
	for _, r := range refs {
		entries = append(entries, gitobj.TreeEntry{Name: string(r.Alias), Mode: gitobj.ModeRegular, Hash: r.OID})
	}
	gitobj.SortEntries(entries)
	nodes := storeObj(&gitobj.Tree{Entries: entries})
	deep := storeObj(&gitobj.Tree{Entries: []gitobj.TreeEntry{{Name: "deeper", Mode: gitobj.ModeDir, Hash: nodes}}})
	top := storeObj(&gitobj.Tree{Entries: []gitobj.TreeEntry{
		{Name: "README", Mode: gitobj.ModeRegular, Hash: refs[0].OID},
		{Name: "deep", Mode: gitobj.ModeDir, Hash: deep},
		{Name: "nodes", Mode: gitobj.ModeDir, Hash: nodes},
	}})
	sig := gitobj.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0).UTC()}
	c := &gitobj.Commit{Author: sig, Committer: sig, Message: "nodes\n", TreeHash: top}
	if !parent.IsZero() {
		c.ParentHashes = []gitobj.Hash{parent}
	}
	return storeObj(c)
}

func TestGitRoundTripAndFsck(t *testing.T) {
	dir, gitDir := newGitRepo(t)
	// go-git's PlainOpen rejects this extension; OpenDir must not care.
	git(t, dir, "config", "core.repositoryformatversion", "1")
	git(t, dir, "config", "extensions.worktreeConfig", "true")
	s := openDir(t, gitDir)
	r, err := s.PutText("héllo <world>\n")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := s.TextSchema()
	want := `{"payload":"héllo <world>\n","type":"` + string(text.Alias) + `"}`
	if got := git(t, dir, "cat-file", "-p", r.OID.String()); got != want {
		t.Fatalf("git cat-file -p = %s, want %s", got, want)
	}
	if got := git(t, dir, "cat-file", "-t", r.OID.String()); got != "blob" {
		t.Fatalf("object type %s", got)
	}
	// git computes the same oid for the canonical bytes.
	f := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(f, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "hash-object", f); got != r.OID.String() {
		t.Fatalf("git hash-object = %s, want %s", got, r.OID)
	}
	c := commitNodes(t, s, gitobj.ZeroHash, r, text)
	git(t, dir, "update-ref", "refs/uwf/test", c.String())
	git(t, dir, "fsck", "--strict", "--no-dangling")
	// A fresh store reads what the first wrote.
	n, err := openDir(t, gitDir).Get(r.Alias)
	if err != nil || n.OID != r.OID {
		t.Fatalf("Get from fresh store = %+v, %v", n, err)
	}
}

func TestGitIndexFromRefs(t *testing.T) {
	dir, gitDir := newGitRepo(t)
	writer := Open(mustStorer(t, gitDir), "") // writes without touching the on-disk index
	a, _ := writer.PutText("a")
	b, _ := writer.PutText("b")
	c1 := commitNodes(t, writer, gitobj.ZeroHash, a)
	c2 := commitNodes(t, writer, c1, b)
	git(t, dir, "update-ref", "refs/uwf/test", c2.String())
	git(t, dir, "update-ref", "refs/heads/main", c2.String())

	s := openDir(t, gitDir)
	for _, r := range []Ref{a, b} {
		n, err := s.Get(r.Alias)
		if err != nil || n.OID != r.OID {
			t.Fatalf("Get(%s) = %+v, %v", r.Alias, n, err)
		}
	}
	if got, err := s.ResolvePrefix(strings.ToLower(string(a.Alias[:8]))); err != nil || got != a.Alias {
		t.Fatalf("ResolvePrefix = %s, %v", got, err)
	}

	// Delete the index: nothing is lost.
	if err := os.RemoveAll(filepath.Join(gitDir, "uwf")); err != nil {
		t.Fatal(err)
	}
	for _, st := range []*Store{s, openDir(t, gitDir)} {
		if n, err := st.Get(b.Alias); err != nil || n.OID != b.OID {
			t.Fatalf("Get after deleting the index = %+v, %v", n, err)
		}
	}
	if _, err := os.Stat(filepath.Join(gitDir, "uwf", "index", indexLogName)); err != nil {
		t.Fatalf("index not rebuilt: %v", err)
	}

	// External update-ref: a node only reachable from a branch is not
	// indexed; once a uwf ref points at it, it resolves with no extra step.
	c, _ := writer.PutText("c")
	c3 := commitNodes(t, writer, c2, c)
	git(t, dir, "update-ref", "refs/heads/main", c3.String())
	if _, err := s.Get(c.Alias); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(c) reachable from refs/heads only = %v, want ErrNotFound", err)
	}
	git(t, dir, "update-ref", "refs/uwf/test", c3.String())
	if n, err := s.Get(c.Alias); err != nil || n.OID != c.OID {
		t.Fatalf("Get after update-ref = %+v, %v", n, err)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

func TestGitFetch(t *testing.T) {
	srcDir, srcGit := newGitRepo(t)
	src := openDir(t, srcGit)
	r, _ := src.PutText("fetched")
	text, _ := src.TextSchema()
	git(t, srcDir, "update-ref", "refs/uwf/threads/x", commitNodes(t, src, gitobj.ZeroHash, r, text).String())

	dstDir, dstGit := newGitRepo(t)
	dst := openDir(t, dstGit)
	if ok, _ := dst.Has(r.Alias); ok {
		t.Fatal("node present before fetch")
	}
	git(t, dstDir, "fetch", "-q", srcDir, "+refs/uwf/*:refs/remotes/origin/uwf/*")
	git(t, dstDir, "gc", "-q") // objects now live in a pack
	n, err := dst.Get(r.Alias)
	if err != nil || n.OID != r.OID {
		t.Fatalf("Get after fetch = %+v, %v", n, err)
	}
	if got, err := dst.Expand(r.Alias); err != nil || got != "fetched" {
		t.Fatalf("Expand = %v, %v", got, err)
	}
}

func mustStorer(t testing.TB, gitDir string) *DB {
	t.Helper()
	st, err := OpenDB(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestGitIndexFile(t *testing.T) {
	dir, gitDir := newGitRepo(t)
	s := openDir(t, gitDir)
	var refs []Ref
	for i := range 5 {
		r, err := s.PutText(fmt.Sprint(i))
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	c1 := commitNodes(t, s, gitobj.ZeroHash, refs[:2]...)
	git(t, dir, "update-ref", "refs/uwf/a", c1.String())
	if err := s.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	c2 := commitNodes(t, s, c1, refs[2])
	git(t, dir, "update-ref", "refs/uwf/a", c2.String())
	for range 2 {
		if err := s.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(gitDir, "uwf", "index", indexLogName)
	// Each commit is indexed once; the walk stopped at c1 the second time.
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\nc "); n != 2 {
		t.Fatalf("%d commit records in the log, want 2:\n%s", n, data)
	}
	loaded := openDir(t, gitDir)
	if err := loaded.idx.ensure(); err != nil {
		t.Fatal(err)
	}
	_, tipsDigest, _ := loaded.listTips()
	if _, ok := loaded.idx.commits[c1]; !ok || len(loaded.idx.commits) != 2 || loaded.idx.tips != tipsDigest {
		t.Fatalf("loaded index: commits %v tips %q, want c1, c2 and %q", loaded.idx.commits, loaded.idx.tips, tipsDigest)
	}

	// Unreachable nodes written by Put are found through the log alone.
	check := func(name string) {
		t.Helper()
		fresh := openDir(t, gitDir)
		for _, r := range refs {
			if n, err := fresh.Get(r.Alias); err != nil || n.OID != r.OID {
				t.Fatalf("%s: Get(%s) = %+v, %v", name, r.Alias, n, err)
			}
		}
	}
	check("clean")

	// Torn and corrupt lines are skipped, not fatal.
	f, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "garbage line\na %s %s deadbeef\na 0123", refs[0].Alias, refs[1].OID)
	f.Close()
	check("corrupt")
	s2 := openDir(t, gitDir)
	r, err := s2.PutText("after torn line")
	if err != nil {
		t.Fatal(err)
	}
	refs = append(refs, r)
	check("appended after torn line")

	// Another format version is discarded and rebuilt from refs.
	if err := os.WriteFile(logPath, []byte("uwf-alias-index 999\nwhatever\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := openDir(t, gitDir)
	if n, err := fresh.Get(refs[1].Alias); err != nil || n.OID != refs[1].OID {
		t.Fatalf("Get after version change = %+v, %v", n, err)
	}
	data, _ = os.ReadFile(logPath)
	if !strings.HasPrefix(string(data), indexHeader()) {
		t.Fatalf("log not rewritten: %q", data)
	}

	// Reindex keeps exactly what the refs reach.
	n, err := fresh.Reindex(context.Background())
	if err != nil || n != 3 {
		t.Fatalf("Reindex = %d, %v, want 3", n, err)
	}
	if ok, _ := fresh.Has(refs[4].Alias); ok {
		t.Fatal("unreachable node still indexed after Reindex")
	}
}

func TestGitConcurrentPut(t *testing.T) {
	dir, gitDir := newGitRepo(t)
	stores := []*Store{openDir(t, gitDir), openDir(t, gitDir)} // two "processes"
	const workers, per = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*per)
	refs := make([][]Ref, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[w%len(stores)]
			for i := range per {
				r, err := s.PutText(fmt.Sprintf("w%d-%d", w, i%5)) // duplicates on purpose
				if err != nil {
					errs <- err
					return
				}
				if _, err := s.Get(r.Alias); err != nil {
					errs <- err
					return
				}
				refs[w] = append(refs[w], r)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	fresh := openDir(t, gitDir)
	for _, rs := range refs {
		for _, r := range rs {
			if n, err := fresh.Get(r.Alias); err != nil || n.OID != r.OID {
				t.Fatalf("Get(%s) = %+v, %v", r.Alias, n, err)
			}
		}
	}
	git(t, dir, "fsck", "--strict")
}

func TestIsUWFRef(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"refs/uwf/threads/x", true},
		{"refs/uwf/workflows/a/b", true},
		{"refs/remotes/origin/uwf/threads/x", true},
		{"refs/remotes/origin/main", false},
		{"refs/remotes/uwf/x", false},
		{"refs/heads/uwf/x", false},
		{"refs/uwfx/y", false},
		{"HEAD", false},
	}
	for _, tt := range tests {
		if got := IsUWFRef(tt.name); got != tt.want {
			t.Errorf("IsUWFRef(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
