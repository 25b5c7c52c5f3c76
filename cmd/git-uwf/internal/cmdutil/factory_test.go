package cmdutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

func TestMayHaveFetchedThreads(t *testing.T) {
	write := func(t *testing.T, dir, rel, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const oid = "0123456789012345678901234567890123456789"
	tests := []struct {
		name  string
		files map[string]string
		want  bool
	}{
		{"empty repository", nil, false},
		{"branches only", map[string]string{
			"refs/remotes/origin/main": oid + "\n",
			"packed-refs":              "# pack-refs with: peeled fully-peeled sorted\n" + oid + " refs/remotes/origin/dev\n" + oid + " refs/uwf/threads/X\n",
		}, false},
		{"loose tracking ref", map[string]string{"refs/remotes/origin/uwf/threads/X": oid + "\n"}, true},
		{"remote name with a slash", map[string]string{"refs/remotes/a/b/uwf/threads/X": oid + "\n"}, true},
		{"packed tracking ref", map[string]string{"packed-refs": oid + " refs/remotes/origin/main\n" + oid + " refs/remotes/origin/uwf/threads/X\n"}, true},
		{"packed, the tracking ref after other remotes' refs", map[string]string{"packed-refs": "# pack-refs with: peeled fully-peeled sorted\n" +
			oid + " refs/remotes/a/main\n" + oid + " refs/remotes/b/dev\n" + oid + " refs/remotes/b/uwf/threads/X\n" + oid + " refs/uwf/threads/X\n"}, true},
		{"damaged packed-refs", map[string]string{"packed-refs": "not a ref\n"}, true},
		{"reftable", map[string]string{"reftable/tables.list": ""}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "refs"), 0o755); err != nil {
				t.Fatal(err)
			}
			for rel, content := range tt.files {
				write(t, dir, rel, content)
			}
			if got := mayHaveFetchedThreads(dir, gitrepo.NewRefFiles(dir)); got != tt.want {
				t.Fatalf("mayHaveFetchedThreads = %v, want %v", got, tt.want)
			}
		})
	}
}
