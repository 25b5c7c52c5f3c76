package gitrepo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// forEachRef is what `git for-each-ref` says, in ReadRefs' form.
func forEachRef(t *testing.T, dir string, patterns ...string) []RefEntry {
	t.Helper()
	out := git(t, dir, append([]string{"for-each-ref", "--format=%(objectname) %(refname)"}, patterns...)...)
	var refs []RefEntry
	for line := range strings.Lines(out) {
		oid, name, _ := strings.Cut(strings.TrimSpace(line), " ")
		refs = append(refs, RefEntry{Name: name, OID: oid})
	}
	return refs
}

// refsRepo builds a repository with packed, loose-over-packed, loose-only,
// deleted, symbolic and tag refs, plus a lock file and a hidden file that
// git ignores, and a linked worktree. It returns the main and worktree
// directories and the common dir.
func refsRepo(t *testing.T) (main, wt, common string) {
	t.Helper()
	main = initRepo(t)
	c1 := git(t, main, "rev-parse", "HEAD")
	git(t, main, "commit", "-q", "--allow-empty", "-m", "two")
	c2 := git(t, main, "rev-parse", "HEAD")
	for _, r := range []string{"refs/uwf/threads/A", "refs/uwf/threads/B", "refs/uwf/threads/C", "refs/uwf/threads/sub/D",
		"refs/uwf/attempts/A", "refs/uwf/threads-x", "refs/uwf/threadsy/E", "refs/remotes/o/uwf/threads/A"} {
		git(t, main, "update-ref", r, c1)
	}
	git(t, main, "tag", "-a", "-m", "annotated", "v1", c1)
	git(t, main, "pack-refs", "--all")
	git(t, main, "update-ref", "refs/uwf/threads/B", c2)     // loose over packed
	git(t, main, "update-ref", "refs/uwf/threads/F", c2)     // loose only
	git(t, main, "update-ref", "refs/uwf/threads/sub/G", c2) // loose, nested
	git(t, main, "update-ref", "-d", "refs/uwf/threads/C")   // deleted from packed
	git(t, main, "symbolic-ref", "refs/uwf/sym/loose", "refs/uwf/threads/F")
	git(t, main, "symbolic-ref", "refs/uwf/sym/packed", "refs/uwf/threads/A")
	git(t, main, "symbolic-ref", "refs/uwf/sym/chain", "refs/uwf/sym/loose")
	git(t, main, "symbolic-ref", "refs/uwf/sym/dangling", "refs/uwf/threads/none")
	common = filepath.Join(main, ".git")
	for _, f := range []string{"refs/uwf/threads/H.lock", "refs/uwf/threads/.hidden"} {
		if err := os.WriteFile(filepath.Join(common, filepath.FromSlash(f)), []byte(c1+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wt = filepath.Join(t.TempDir(), "wt")
	git(t, main, "worktree", "add", "-q", wt)
	return main, wt, common
}

func TestReadRefsMatchesForEachRef(t *testing.T) {
	main, wt, common := refsRepo(t)
	patterns := [][]string{
		{"refs/uwf/threads/"},
		{"refs/uwf/threads"},
		{"refs/uwf/"},
		{"refs/uwf"},
		{"refs/uwf/threads/", "refs/uwf/attempts/"},
		{"refs/uwf/", "refs/uwf/threads/"}, // overlapping
		{"refs/uwf/threads/A"},
		{"refs/uwf/threads/B"},
		{"refs/uwf/threads/C"},
		{"refs/uwf/thr"},
		{"refs/uwf/sym/"},
		{"refs/tags/"},
		{"refs/remotes/"},
		{"refs/heads/", "refs/tags/"},
		{"refs/nothing/"},
	}
	for _, dir := range []string{main, wt} {
		for _, p := range patterns {
			t.Run(fmt.Sprintf("%s/%v", filepath.Base(dir), p), func(t *testing.T) {
				got, ok, err := ReadRefs(common, p...)
				if err != nil || !ok {
					t.Fatalf("ReadRefs: ok=%v err=%v", ok, err)
				}
				if want := forEachRef(t, dir, p...); !slices.Equal(got, want) {
					t.Fatalf("ReadRefs(%v)\n got %v\nwant %v", p, got, want)
				}
			})
		}
	}
}

func TestReadRefsUnsortedPackedRefs(t *testing.T) {
	main, _, common := refsRepo(t)
	path := filepath.Join(common, "packed-refs")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Drop the header (so no "sorted" trait) and reverse the records.
	var recs []string
	for line := range strings.Lines(string(data)) {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "^"):
			recs[len(recs)-1] += line
		default:
			recs = append(recs, line)
		}
	}
	slices.Reverse(recs)
	if err := os.WriteFile(path, []byte(strings.Join(recs, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"refs/uwf/", "refs/tags/", "refs/uwf/threads/A"} {
		got, ok, err := ReadRefs(common, p)
		if err != nil || !ok {
			t.Fatalf("ReadRefs: ok=%v err=%v", ok, err)
		}
		if want := forEachRef(t, main, p); !slices.Equal(got, want) {
			t.Fatalf("ReadRefs(%s)\n got %v\nwant %v", p, got, want)
		}
	}
}

func TestReadHashRefsSkipsSymbolicRefs(t *testing.T) {
	main, _, common := refsRepo(t)
	// A loose symbolic ref hides a packed ref of the same name.
	git(t, main, "symbolic-ref", "refs/uwf/threads/A", "refs/uwf/threads/B")
	got, ok, err := ReadHashRefs(common, "refs/uwf/")
	if err != nil || !ok {
		t.Fatalf("ReadHashRefs: ok=%v err=%v", ok, err)
	}
	for _, r := range got {
		if strings.HasPrefix(r.Name, "refs/uwf/sym/") || r.Name == "refs/uwf/threads/A" {
			t.Fatalf("symbolic ref %s listed: %v", r.Name, got)
		}
	}
	if !slices.ContainsFunc(got, func(r RefEntry) bool { return r.Name == "refs/uwf/threads/B" }) {
		t.Fatalf("hash ref missing: %v", got)
	}
}

func TestReadRef(t *testing.T) {
	main, wt, common := refsRepo(t)
	tests := []struct{ name, want string }{
		{"refs/uwf/threads/A", git(t, main, "rev-parse", "refs/uwf/threads/A")},
		{"refs/uwf/threads/B", git(t, main, "rev-parse", "refs/uwf/threads/B")},
		{"refs/uwf/threads/sub/G", git(t, main, "rev-parse", "refs/uwf/threads/sub/G")},
		{"refs/uwf/sym/chain", git(t, main, "rev-parse", "refs/uwf/threads/F")},
		{"refs/uwf/sym/packed", git(t, main, "rev-parse", "refs/uwf/threads/A")},
		{"refs/tags/v1", git(t, main, "rev-parse", "refs/tags/v1")},
		{"refs/uwf/threads/C", ""},
		{"refs/uwf/sym/dangling", ""},
		{"refs/uwf/threads/sub", ""}, // a folder of refs
		{"refs/uwf/nope", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := ReadRef(common, tt.name)
			if err != nil || !ok || got != tt.want {
				t.Fatalf("ReadRef = %q, %v, %v; want %q", got, ok, err, tt.want)
			}
		})
	}
	_ = wt
}

// Cases that must be left to git.
func TestReadRefsDefersToGit(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, main, common string)
		patterns []string
	}{
		{"glob", nil, []string{"refs/uwf/*"}},
		{"no pattern", nil, nil},
		{"per-worktree namespace", nil, []string{"refs/bisect/"}},
		{"all refs", nil, []string{"refs/"}},
		{"outside refs", nil, []string{"HEAD"}},
		{"reftable folder", func(t *testing.T, _, common string) {
			mkdir(t, filepath.Join(common, "reftable"))
		}, []string{"refs/uwf/"}},
		{"refStorage extension", func(t *testing.T, main, _ string) {
			git(t, main, "config", "extensions.refStorage", "files")
		}, []string{"refs/uwf/"}},
		{"broken loose ref", func(t *testing.T, _, common string) {
			write(t, filepath.Join(common, "refs/uwf/threads/X"), "garbage\n")
		}, []string{"refs/uwf/"}},
		{"short oid", func(t *testing.T, _, common string) {
			write(t, filepath.Join(common, "refs/uwf/threads/X"), "abc\n")
		}, []string{"refs/uwf/"}},
		{"bad ref name", func(t *testing.T, main, common string) {
			write(t, filepath.Join(common, "refs/uwf/threads/a b"), git(t, main, "rev-parse", "HEAD")+"\n")
		}, []string{"refs/uwf/"}},
		{"symlink", func(t *testing.T, _, common string) {
			if err := os.Symlink("A", filepath.Join(common, "refs/uwf/threads/L")); err != nil {
				t.Fatal(err)
			}
		}, []string{"refs/uwf/"}},
		{"symbolic ref to HEAD", func(t *testing.T, _, common string) {
			write(t, filepath.Join(common, "refs/uwf/threads/S"), "ref: HEAD\n")
		}, []string{"refs/uwf/"}},
		{"malformed packed-refs", func(t *testing.T, _, common string) {
			write(t, filepath.Join(common, "packed-refs"), "# pack-refs with: peeled sorted \nnot a record\n")
		}, []string{"refs/uwf/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			main := initRepo(t)
			common := filepath.Join(main, ".git")
			git(t, main, "update-ref", "refs/uwf/threads/A", "HEAD")
			if tt.setup != nil {
				tt.setup(t, main, common)
			}
			refs, ok, err := ReadRefs(common, tt.patterns...)
			if ok {
				t.Fatalf("ReadRefs answered %v, %v", refs, err)
			}
		})
	}
}

func TestListRefsFallsBackToGit(t *testing.T) {
	main := initRepo(t)
	git(t, main, "update-ref", "refs/uwf/threads/A", "HEAD")
	r, err := NewRunner(main, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := forEachRef(t, main, "refs/uwf/")
	for _, p := range []string{"refs/uwf/", "refs/uwf/threads/*"} { // in-process, then through git
		got, err := r.ListRefs(context.Background(), filepath.Join(main, ".git"), p)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("ListRefs(%s) = %v, %v; want %v", p, got, err, want)
		}
	}
}

// A concurrent `git pack-refs` moves loose refs into packed-refs and
// deletes them; a ref that does not change must never be missed.
func TestReadRefsDuringPackRefs(t *testing.T) {
	main := initRepo(t)
	common := filepath.Join(main, ".git")
	head := git(t, main, "rev-parse", "HEAD")
	var in strings.Builder
	const n = 200
	for i := range n {
		fmt.Fprintf(&in, "create refs/uwf/threads/T%03d %s\n", i, head)
	}
	stdinGit(t, main, in.String(), "update-ref", "--stdin")
	git(t, main, "commit", "-q", "--allow-empty", "-m", "next")
	next := git(t, main, "rev-parse", "HEAD")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Alternate: pack every ref, then move every ref (which makes
			// them loose again). Every ref exists throughout.
			if i%2 == 0 {
				runGit(main, "", "pack-refs", "--all")
				continue
			}
			from, to := head, next
			if i%4 == 3 {
				from, to = next, head
			}
			var up strings.Builder
			for j := range n {
				fmt.Fprintf(&up, "update refs/uwf/threads/T%03d %s %s\n", j, to, from)
			}
			runGit(main, up.String(), "update-ref", "--stdin")
		}
	}()
	for range 40 {
		refs, ok, err := ReadRefs(common, "refs/uwf/threads/")
		if err != nil {
			t.Error(err)
			break
		}
		if !ok {
			continue
		}
		if len(refs) != n {
			t.Errorf("read %d refs during pack-refs, want %d", len(refs), n)
			break
		}
		for _, r := range refs {
			if r.OID != head && r.OID != next {
				t.Errorf("%s = %s, a value it never had", r.Name, r.OID)
			}
		}
	}
	close(stop)
	wg.Wait()
}

func stdinGit(t *testing.T, dir, stdin string, args ...string) {
	t.Helper()
	r, err := NewRunner(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), strings.NewReader(stdin), args...); err != nil {
		t.Fatal(err)
	}
}

func runGit(dir, stdin string, args ...string) {
	r, err := NewRunner(dir, nil)
	if err == nil {
		_, _ = r.Run(context.Background(), strings.NewReader(stdin), args...)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkReadRefs lists 10,000 packed thread refs and a few loose ones.
func BenchmarkReadRefs(b *testing.B) {
	dir := b.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=b", "-c", "user.email=b@x", "commit", "-q", "--allow-empty", "-m", "x"}} {
		runGit(dir, "", args...)
	}
	r, err := NewRunner(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	head, err := r.Output(context.Background(), "rev-parse", "HEAD")
	if err != nil {
		b.Fatal(err)
	}
	var in strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&in, "create refs/uwf/threads/01M7YQXSZRKDCTC8AE2D%06d %s\n", i, head)
	}
	runGit(dir, in.String(), "update-ref", "--stdin")
	runGit(dir, "", "pack-refs", "--all")
	runGit(dir, "", "update-ref", "refs/uwf/threads/01M7YQXSZRKDCTC8AE2D999999", head)
	common := filepath.Join(dir, ".git")
	b.ReportAllocs()
	for b.Loop() {
		refs, ok, err := ReadRefs(common, "refs/uwf/threads/", "refs/uwf/attempts/")
		if !ok || err != nil || len(refs) != 10001 {
			b.Fatal(len(refs), ok, err)
		}
	}
}

func TestValidRefNameMatchesGit(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"refs/uwf/threads/01M7YQXSZRKDCTC8AE2DCKMTV8", "refs/heads/a.b", "refs/heads/a..b", "refs/heads/.a", "refs/heads/a.",
		"refs/heads/a.lock", "refs/heads/a.lock/b", "refs/heads/a@{b", "refs/heads/a@b", "refs/heads/@", "@", "refs/heads/a b",
		"refs/heads/a~b", "refs/heads/a^b", "refs/heads/a:b", "refs/heads/a?b", "refs/heads/a*b", "refs/heads/a[b",
		"refs/heads/a\\b", "refs/heads/a\x01b", "refs/heads/a\x7fb", "refs/heads//a", "refs/heads/a/", "refs/heads/é",
		"refs/heads/a{b}", "refs/heads/-a", "refs/heads/a/.b", "refs/heads/a/b.", "refs/heads/{", "refs/x.lockx",
	} {
		cmd := exec.Command("git", "check-ref-format", name)
		cmd.Dir = dir
		gitOK := cmd.Run() == nil
		if got := validRefName(name); got && !gitOK {
			t.Errorf("validRefName(%q) = true, git rejects it", name)
		} else if !got && gitOK {
			// Rejecting more than git only costs speed (git is asked);
			// none of these should be.
			t.Errorf("validRefName(%q) = false, git accepts it", name)
		}
	}
}

// TestReadRefsLongListingOfMappedFile lists namespaces of a packed-refs
// file large enough to be mapped, with more records than listCopyFrom, so
// that the listing reads a copy of the records it covers: one namespace
// of two (a clone's threads beside its remote-tracking refs), both, one
// with loose refs over it, and sets of patterns whose ranges lie apart or
// are empty. Each must be what git for-each-ref lists.
func TestReadRefsLongListingOfMappedFile(t *testing.T) {
	main := initRepo(t)
	commit := git(t, main, "rev-parse", "HEAD")
	git(t, main, "tag", "-a", "-m", "annotated", "v1", commit)
	tag := git(t, main, "rev-parse", "refs/tags/v1")
	per := listCopyFrom + 2000
	var names []string
	for _, ns := range []string{"refs/remotes/origin/uwf/threads/", "refs/uwf/threads/"} {
		for i := range per {
			names = append(names, fmt.Sprintf("%s01J%023d", ns, i))
		}
	}
	var b strings.Builder
	b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for _, n := range names[:per] {
		fmt.Fprintf(&b, "%s %s\n", commit, n)
	}
	fmt.Fprintf(&b, "%s refs/tags/v1\n^%s\n", tag, commit) // a peeled record between the two
	for _, n := range names[per:] {
		fmt.Fprintf(&b, "%s %s\n", commit, n)
	}
	common := filepath.Join(main, ".git")
	if err := os.WriteFile(filepath.Join(common, "packed-refs"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(common, "refs", "tags", "v1")); err != nil {
		t.Fatal(err)
	}
	if b.Len() < mapPackedRefsFrom {
		t.Fatalf("packed-refs of %d bytes is not mapped (from %d)", b.Len(), mapPackedRefsFrom)
	}
	git(t, main, "commit", "-q", "--allow-empty", "-m", "two")
	git(t, main, "update-ref", names[per+7], "HEAD")             // loose over packed
	git(t, main, "update-ref", "refs/uwf/threads/loose", "HEAD") // loose only
	files := NewRefFiles(common)
	// The copy is taken from a mapped file only (RefFiles maps it; ReadRefs
	// without one reads it), for listings of more than listCopyFrom
	// records: make sure the fixture still gets there.
	if p, err := files.packedRefs(); err != nil || !p.mapped {
		t.Fatalf("packed-refs of %d bytes not mapped (err %v): the listings below would not copy", b.Len(), err)
	}
	for _, p := range []string{"refs/uwf/threads/", "refs/remotes/origin/uwf/", "refs/tags/"} {
		got, ok := each(t, files, p)
		if want := forEachRef(t, main, p); !ok || !slices.Equal(got, want) {
			t.Fatalf("Each(%s): ok=%v, %d refs, git lists %d; first difference at %d", p, ok, len(got), len(want), firstDiff(got, want))
		}
	}
	for _, p := range [][]string{
		{"refs/uwf/threads/"},
		{"refs/remotes/origin/uwf/"},
		{"refs/uwf/threads/", "refs/remotes/origin/uwf/"},
		{"refs/remotes/", "refs/tags/", "refs/uwf/"},
		{"refs/uwf/threads/", "refs/nothing/"},
		{"refs/heads/", "refs/uwf/threads/"},
		{"refs/a/", "refs/remotes/origin/uwf/threads/", "refs/tags/v1"},
	} {
		want := forEachRef(t, main, p...)
		for name, list := range map[string]func(...string) ([]RefEntry, bool, error){
			"ReadRefs":      func(p ...string) ([]RefEntry, bool, error) { return ReadRefs(common, p...) },
			"RefFiles.List": files.List,
		} {
			got, ok, err := list(p...)
			if err != nil || !ok {
				t.Fatalf("%s(%v): ok=%v err=%v", name, p, ok, err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s(%v): %d refs, git lists %d; first difference at %d", name, p, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

// firstDiff is the index of the first entry in which a and b differ.
func firstDiff(a, b []RefEntry) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// each collects what RefFiles.Each passes on, copied.
func each(t *testing.T, files *RefFiles, pattern string) ([]RefEntry, bool) {
	t.Helper()
	var got []RefEntry
	ok, err := files.Each(pattern, func(name, oid string) {
		got = append(got, RefEntry{Name: strings.Clone(name), OID: strings.Clone(oid)})
	})
	if err != nil {
		t.Fatalf("Each(%s): %v", pattern, err)
	}
	return got, ok
}

// TestRefFilesEach checks that Each passes on what ReadRefs lists, in the
// same order, for every pattern of TestReadRefsMatchesForEachRef, and that
// it leaves to the caller a pattern that matches a loose symbolic ref
// (which it does not resolve) or that ReadRefs leaves to git.
func TestRefFilesEach(t *testing.T) {
	_, _, common := refsRepo(t)
	files := NewRefFiles(common)
	for _, p := range []string{"refs/uwf/threads/", "refs/uwf/threads", "refs/uwf/threads/B", "refs/uwf/threads/C",
		"refs/uwf/thr", "refs/tags/", "refs/remotes/", "refs/nothing/", "refs/uwf/attempts/"} {
		t.Run(p, func(t *testing.T) {
			got, ok := each(t, files, p)
			if !ok {
				t.Fatalf("Each(%s) left it to the caller", p)
			}
			want, ok, err := ReadRefs(common, p)
			if err != nil || !ok {
				t.Fatalf("ReadRefs(%s): ok=%v err=%v", p, ok, err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("Each(%s)\n got %v\nwant %v", p, got, want)
			}
		})
	}
	for _, p := range []string{"refs/uwf/", "refs/uwf/sym/", "refs/uwf/*", "", "refs//uwf/", "HEAD"} {
		if got, ok := each(t, files, p); ok {
			t.Errorf("Each(%q) answered %v; want it left to the caller", p, got)
		}
	}
}
