package chain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

const (
	oidA = "1111111111111111111111111111111111111111"
	oidB = "2222222222222222222222222222222222222222"
	oidC = "3333333333333333333333333333333333333333"
)

func TestRefFilesLookup(t *testing.T) {
	packed := "# pack-refs with: peeled fully-peeled sorted \n" +
		oidA + " refs/uwf/threads/ABCD\n" +
		oidB + " refs/uwf/threads/ABCDE\n" +
		"^" + oidC + "\n" +
		oidC + " refs/uwf/threads/XYZ\n"
	tests := []struct {
		name      string
		packed    string
		loose     map[string]string
		reftable  bool
		ref       string
		want      string // "" not found
		undecided bool
	}{
		{name: "packed", packed: packed, ref: "refs/uwf/threads/ABCD", want: oidA},
		{name: "longer packed name", packed: packed, ref: "refs/uwf/threads/ABCDE", want: oidB},
		{name: "prefix of a packed name", packed: packed, ref: "refs/uwf/threads/ABC"},
		{name: "last line", packed: packed, ref: "refs/uwf/threads/XYZ", want: oidC},
		{name: "unterminated last line", packed: strings.TrimSuffix(packed, "\n"), ref: "refs/uwf/threads/XYZ", undecided: true},
		{name: "suffix of a packed name", packed: packed, ref: "refs/uwf/threads/BCD"},
		{name: "loose wins", packed: packed, loose: map[string]string{"refs/uwf/threads/ABCD": oidC + "\n"}, ref: "refs/uwf/threads/ABCD", want: oidC},
		{name: "loose only", loose: map[string]string{"refs/uwf/attempts/Q": oidB + "\n"}, ref: "refs/uwf/attempts/Q", want: oidB},
		{name: "absent, no packed-refs", ref: "refs/uwf/attempts/Q"},
		{name: "symbolic, dangling", loose: map[string]string{"refs/uwf/threads/S": "ref: refs/heads/main\n"}, ref: "refs/uwf/threads/S"},
		{name: "symbolic", packed: packed, loose: map[string]string{"refs/uwf/threads/S": "ref: refs/uwf/threads/XYZ\n"}, ref: "refs/uwf/threads/S", want: oidC},
		{name: "damaged", loose: map[string]string{"refs/uwf/threads/S": "xyz\n"}, ref: "refs/uwf/threads/S", undecided: true},
		{name: "reftable", reftable: true, ref: "refs/uwf/threads/ABCD", undecided: true},
		{name: "outside refs/uwf", packed: oidB + " refs/heads/main\n", ref: "refs/heads/main", want: oidB},
		{name: "per-worktree ref", ref: "refs/bisect/bad", undecided: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "refs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.packed != "" {
				writeFile(t, filepath.Join(dir, "packed-refs"), tt.packed)
			}
			for name, v := range tt.loose {
				writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), v)
			}
			if tt.reftable {
				if err := os.MkdirAll(filepath.Join(dir, "reftable"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			f := newRefFiles(dir)
			h, found, ok := f.lookup(tt.ref)
			if ok == tt.undecided {
				t.Fatalf("ok = %v, want %v", ok, !tt.undecided)
			}
			if tt.undecided {
				return
			}
			if got := map[bool]string{true: h.String(), false: ""}[found]; got != tt.want {
				t.Fatalf("lookup(%s) = %q, want %q", tt.ref, got, tt.want)
			}
		})
	}
}

// TestRefFilesAgreeWithGit checks lookups against git itself while refs are
// packed, updated loose, deleted and packed again.
func TestRefFilesAgreeWithGit(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x.invalid")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	c1 := git("commit-tree", "-m", "one", "4b825dc642cb6eb9a060e54bf8d69288fbee4904")
	c2 := git("commit-tree", "-m", "two", "4b825dc642cb6eb9a060e54bf8d69288fbee4904")
	names := []string{"refs/uwf/threads/A", "refs/uwf/threads/AB", "refs/uwf/attempts/A", "refs/uwf/threads/B"}
	f := newRefFiles(filepath.Join(dir, ".git"))
	check := func(stage string) {
		t.Helper()
		for _, name := range names {
			want := ""
			if v := exec.Command("git", "rev-parse", "--verify", "-q", name); true {
				v.Dir = dir
				out, _ := v.Output()
				want = strings.TrimSpace(string(out))
			}
			h, found, ok := f.lookup(name)
			got := ""
			if found {
				got = h.String()
			}
			if !ok || got != want {
				t.Errorf("%s: lookup(%s) = %q (ok %v), git says %q", stage, name, got, ok, want)
			}
		}
	}
	git("update-ref", names[0], c1)
	git("update-ref", names[1], c2)
	git("update-ref", names[3], c1)
	check("loose")
	git("pack-refs", "--all")
	check("packed")
	git("update-ref", names[0], c2)
	git("update-ref", "-d", names[3])
	check("updated after packing")
	git("update-ref", names[2], c1)
	git("pack-refs", "--all")
	check("packed again") // packed-refs was replaced: the cached copy must not be used
	if h, _, _ := f.lookup(names[0]); h != gitobj.NewHash(c2) {
		t.Errorf("after repacking: %s", h)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
