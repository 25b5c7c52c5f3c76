package gitrepo

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
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

// TestRefFilesSharedReads: the single lookups, the listings and the packed
// scan of one RefFiles answer as git does and parse packed-refs once while
// it does not change, and again after a repack.
func TestRefFilesSharedReads(t *testing.T) {
	dir := initRepo(t)
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	one := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	for _, name := range []string{"refs/uwf/threads/A", "refs/uwf/threads/B", "refs/remotes/origin/main", "refs/remotes/origin/uwf/threads/A"} {
		git(t, dir, "update-ref", name, one)
	}
	git(t, dir, "pack-refs", "--all")
	git(t, dir, "update-ref", "refs/uwf/threads/C", one) // loose beside packed
	common := filepath.Join(dir, ".git")
	f := NewRefFiles(common)
	isTracking := func(name string) bool { return strings.Contains(strings.TrimPrefix(name, "refs/remotes/"), "/uwf/") }
	reads := []struct {
		name string
		read func() (string, error)
		want string
	}{
		{"Ref", func() (string, error) { oid, _, err := f.Ref("refs/uwf/threads/B"); return oid, err }, one},
		{"List", func() (string, error) {
			refs, ok, err := f.List("refs/uwf/threads/")
			if !ok {
				return "not ok", err
			}
			var names []string
			for _, r := range refs {
				names = append(names, r.Name)
			}
			return strings.Join(names, " "), err
		}, "refs/uwf/threads/A refs/uwf/threads/B refs/uwf/threads/C"},
		{"ListHash", func() (string, error) {
			refs, _, err := f.ListHash("refs/remotes/")
			return fmt.Sprint(len(refs)), err
		}, "2"},
		{"AnyPacked", func() (string, error) {
			found, ok, err := f.AnyPacked("refs/remotes/", isTracking)
			return fmt.Sprint(found, ok), err
		}, "true true"},
	}
	for _, r := range reads {
		got, err := r.read()
		if err != nil || got != r.want {
			t.Errorf("%s = %q, %v; want %q", r.name, got, err, r.want)
		}
	}
	if f.parses != 1 {
		t.Errorf("packed-refs parsed %d times by %d reads, want once", f.parses, len(reads))
	}
	git(t, dir, "update-ref", "-d", "refs/remotes/origin/uwf/threads/A")
	if found, ok, err := f.AnyPacked("refs/remotes/", isTracking); found || !ok || err != nil {
		t.Errorf("AnyPacked after the deletion = %v, %v, %v; want false, true", found, ok, err)
	}
	if f.parses != 2 {
		t.Errorf("packed-refs parsed %d times after it changed, want twice", f.parses)
	}
}

// TestHeadWithSharedRefFiles: HeadWith through a shared RefFiles answers
// what git answers as the branch moves loose and packed, and parses
// packed-refs only when it changed; a RefFiles of another repository is
// not used.
func TestHeadWithSharedRefFiles(t *testing.T) {
	ctx := context.Background()
	dir := initRepo(t)
	repo, err := Discover(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	files := NewRefFiles(repo.CommonDir)
	other := NewRefFiles(filepath.Join(initRepo(t), ".git"))
	steps := []struct {
		name string
		do   func()
	}{
		{"unborn", func() {}},
		{"loose", func() { git(t, dir, "commit", "-q", "--allow-empty", "-m", "one") }},
		{"packed", func() { git(t, dir, "pack-refs", "--all") }},
		{"loose over packed", func() { git(t, dir, "commit", "-q", "--allow-empty", "-m", "two") }},
	}
	for _, st := range steps {
		st.do()
		want := ""
		if out, err := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "HEAD").Output(); err == nil {
			want = strings.TrimSpace(string(out))
		}
		for _, f := range []*RefFiles{files, other} {
			h, err := HeadWith(ctx, repo, f)
			if err != nil || h.Commit != want || h.Branch != "main" {
				t.Errorf("%s: HeadWith = %+v, %v; want main at %q", st.name, h, err, want)
			}
		}
	}
	if files.parses != 1 || other.parses != 0 {
		t.Errorf("packed-refs parsed %d times (other repository: %d), want 1 and 0", files.parses, other.parses)
	}
}

// TestRefFilesMappedPackedRefs: a packed-refs file large enough to be
// mapped answers lookups, scans and listings as git does, and what they
// returned stays intact after the file is replaced and the old mapping is
// released.
func TestRefFilesMappedPackedRefs(t *testing.T) {
	dir := initRepo(t)
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	one := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	var in strings.Builder
	n := 0
	// Mapped, and long enough that a listing takes one copy of its
	// records (listCopyFrom) rather than a copy of each.
	for ; in.Len() < 2*mapPackedRefsFrom || n <= 2*listCopyFrom; n++ {
		fmt.Fprintf(&in, "create refs/uwf/threads/T%06d %s\n", n, one)
	}
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("update-ref --stdin: %v: %s", err, out)
	}
	git(t, dir, "pack-refs", "--all")
	f := NewRefFiles(filepath.Join(dir, ".git"))
	p, err := f.packedRefs()
	if err != nil || !p.mapped {
		t.Fatalf("packedRefs of a %d-ref file: mapped %v, %v; want a mapping", n, p != nil && p.mapped, err)
	}
	name := fmt.Sprintf("refs/uwf/threads/T%06d", n/2)
	oid, ok, err := f.Ref(name)
	if err != nil || !ok || oid != one {
		t.Fatalf("Ref(%s) = %q, %v, %v; want %s", name, oid, ok, err, one)
	}
	refs, ok, err := f.List("refs/uwf/threads/")
	if err != nil || !ok || len(refs) != n {
		t.Fatalf("List = %d refs, %v, %v; want %d", len(refs), ok, err, n)
	}
	found, ok, err := f.AnyPacked("refs/uwf/threads/T0000", func(name string) bool { return name == "refs/uwf/threads/T000042" })
	if err != nil || !ok || !found {
		t.Fatalf("AnyPacked = %v, %v, %v; want found", found, ok, err)
	}
	// Replace the file (git writes a new one and renames it) and let the
	// old mapping go.
	git(t, dir, "update-ref", "-d", "refs/uwf/threads/T000000")
	git(t, dir, "pack-refs", "--all")
	if got, ok, err := f.Ref("refs/uwf/threads/T000000"); err != nil || !ok || got != "" {
		t.Fatalf("Ref of a deleted ref = %q, %v, %v; want none", got, ok, err)
	}
	p = nil
	for range 3 {
		runtime.GC()
	}
	if oid != one {
		t.Fatalf("an oid Ref returned changed after the mapping went: %q", oid)
	}
	for i, r := range refs {
		if want := fmt.Sprintf("refs/uwf/threads/T%06d", i); r.Name != want || r.OID != one {
			t.Fatalf("listed ref %d after the mapping went: %q %q; want %q %q", i, r.Name, r.OID, want, one)
		}
	}
}

// TestRefFilesRefs: the batch lookup answers, name by name, what git
// rev-parse answers (loose, packed, loose over packed, missing, a symbolic
// ref), and leaves to git the names it cannot answer for.
func TestRefFilesRefs(t *testing.T) {
	dir := initRepo(t)
	one := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	two := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	git(t, dir, "update-ref", "refs/uwf/threads/P", one)
	git(t, dir, "update-ref", "refs/uwf/threads/S", one)
	git(t, dir, "pack-refs", "--all")
	git(t, dir, "update-ref", "refs/uwf/threads/S", two) // loose over packed
	git(t, dir, "update-ref", "refs/uwf/threads/L", two)
	git(t, dir, "symbolic-ref", "refs/uwf/sym", "refs/uwf/threads/L")
	f := NewRefFiles(filepath.Join(dir, ".git"))
	answerable := []string{"refs/uwf/threads/P", "refs/uwf/threads/S", "refs/uwf/threads/L", "refs/uwf/sym", "refs/uwf/threads/missing"}
	got, ok, err := f.Refs(answerable)
	if err != nil || !ok {
		t.Fatalf("Refs = %v, %v, %v", got, ok, err)
	}
	want := map[string]string{}
	for _, name := range answerable {
		cmd := exec.Command("git", "rev-parse", "-q", "--verify", name)
		cmd.Dir = dir
		if out, err := cmd.Output(); err == nil {
			want[name] = strings.TrimSpace(string(out))
		}
	}
	if len(got) != len(want) {
		t.Errorf("Refs answered %d refs, git %d: %v, want %v", len(got), len(want), got, want)
	}
	for name, oid := range want {
		if got[name] != oid {
			t.Errorf("Refs[%s] = %q, git says %q", name, got[name], oid)
		}
	}
	for _, names := range [][]string{
		{"refs/uwf/threads/P", "refs/bisect/bad"}, // per-worktree
		{"refs/uwf/threads/P", "refs/uwf/bad..name"},
		{"HEAD"},
	} {
		if got, ok, err := f.Refs(names); ok || err != nil || got != nil {
			t.Errorf("Refs(%q) = %v, %v, %v; want nil, false, nil", names, got, ok, err)
		}
	}
}
