package gitcli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefFilesFollowsRepacks: a RefFiles kept across updates, deletions
// and repacks answers what git answers each time, although it keeps
// packed-refs parsed between calls.
func TestRefFilesFollowsRepacks(t *testing.T) {
	dir := initRepo(t)
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	one := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	two := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	f := NewRefFiles(filepath.Join(dir, ".git"))
	const name = "refs/uwf/threads/T"
	check := func(step string) {
		t.Helper()
		want := ""
		cmd := exec.Command("git", "rev-parse", "-q", "--verify", name)
		cmd.Dir = dir
		if out, err := cmd.Output(); err == nil {
			want = strings.TrimSpace(string(out))
		}
		got, ok, err := f.Ref(name)
		if err != nil || !ok {
			t.Fatalf("%s: Ref = %q, %v, %v", step, got, ok, err)
		}
		if got != want {
			t.Fatalf("%s: Ref = %q, git says %q", step, got, want)
		}
	}
	check("absent")
	git(t, dir, "update-ref", name, one)
	check("loose")
	git(t, dir, "pack-refs", "--all")
	check("packed")
	git(t, dir, "update-ref", name, two)
	check("loose over packed")
	git(t, dir, "pack-refs", "--all")
	check("packed again")
	git(t, dir, "update-ref", "-d", name)
	check("deleted")
	git(t, dir, "update-ref", name, one)
	git(t, dir, "pack-refs", "--all")
	check("packed a third time")
}
