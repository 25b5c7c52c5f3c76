package chain

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/objects"
)

// TestInProcessAnswersAsCatFile asks the in-process reader and git cat-file
// the same names, objects and paths, present and missing; the cat-file
// asker formats a nameList as those names.
func TestInProcessAnswersAsCatFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gitIn := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	gitIn("", "init", "-q")
	if err := os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"a": "first\n", "sub/b": "second\n", "sub/deeper/c": "third\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn("", "add", "-A")
	gitIn("", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one")
	commit := gitIn("", "rev-parse", "HEAD")
	tree := gitIn("", "rev-parse", "HEAD^{tree}")
	names := []string{commit, tree, tree + ":a", tree + ":sub", tree + ":sub/b", tree + ":sub/deeper/c",
		tree + ":none", tree + ":a/b", tree + ":sub/none", strings.Repeat("1", 40), commit + ":a"}

	want := make([]gitrepo.Object, len(names))
	b, err := (&gitrepo.Runner{Path: "git", Dir: dir}).NewBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.AskEach(names, func(i int, o gitrepo.Object) { want[i] = o; want[i].Data = bytes.Clone(o.Data) }).Wait(); err != nil {
		t.Fatal(err)
	}
	for _, packed := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed %v", packed), func(t *testing.T) {
			if packed {
				gitIn("", "repack", "-adq")
				gitIn("", "prune-packed")
			}
			p := newInProcess(ctx, objects.NewObjectReader(filepath.Join(dir, ".git", "objects")))
			defer p.Close()
			got := make([]gitrepo.Object, len(names))
			// Data is each's only while it runs (the reader's scratch buffer).
			asked := newNameList(len(names))
			for _, name := range names {
				oid, path, _ := strings.Cut(name, ":")
				asked.add(gitobj.NewHash(oid), path)
			}
			if got := asked.strings(); !slices.Equal(got, names) {
				t.Fatalf("names for cat-file: %q, want %q", got, names)
			}
			if _, err := p.AskEach(asked, func(i int, o gitrepo.Object) { got[i] = o; got[i].Data = bytes.Clone(o.Data) }).Wait(); err != nil {
				t.Fatal(err)
			}
			for i, name := range names {
				g, w := got[i], want[i]
				// The OID is left out: the batch's callers know what they asked.
				if g.Missing != w.Missing || g.Type != w.Type || !bytes.Equal(g.Data, w.Data) {
					t.Errorf("%s: in process %+v, cat-file %+v", name, g, w)
				}
			}
		})
	}
}

func TestInProcessReadable(t *testing.T) {
	dir := t.TempDir()
	if !inProcessReadable(dir, nil) {
		t.Fatal("a plain object directory is not readable in process")
	}
	if inProcessReadable(dir, []string{"GIT_OBJECT_DIRECTORY=/elsewhere"}) {
		t.Fatal("GIT_OBJECT_DIRECTORY is not seen")
	}
	if err := os.MkdirAll(filepath.Join(dir, "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "info", "alternates"), []byte("/elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if inProcessReadable(dir, nil) {
		t.Fatal("alternates are not seen")
	}
}

// FuzzRawTreeEntry checks that any tree data is searched or refused
// without a panic, and that an entry found is in the data.
func FuzzRawTreeEntry(f *testing.F) {
	f.Add([]byte("100644 node\x00"+strings.Repeat("\x01", 20)+"40000 nodes\x00"+strings.Repeat("\x02", 20)), "nodes")
	f.Add([]byte("100644 node\x00abc"), "node")
	f.Add([]byte(" x\x00"), "x")
	f.Fuzz(func(t *testing.T, tree []byte, name string) {
		h, ok := rawTreeEntry(tree, name)
		if ok && !bytes.Contains(tree, append([]byte(name+"\x00"), h[:]...)) {
			t.Fatalf("entry %q = %s, not in %q", name, h, tree)
		}
	})
}
