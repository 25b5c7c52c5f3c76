package gitobj_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

func git(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
		"GIT_AUTHOR_NAME=A U Thor", "GIT_AUTHOR_EMAIL=author@example.com", "GIT_AUTHOR_DATE=1700000000 +0130",
		"GIT_COMMITTER_NAME=C O Mitter", "GIT_COMMITTER_EMAIL=committer@example.com", "GIT_COMMITTER_DATE=1700000100 -0800")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// repo returns a new repository and its object storage.
func repo(t *testing.T) (string, gitStore) {
	dir := t.TempDir()
	git(t, dir, "", "init", "-q")
	return dir, gitStore{t, dir}
}

// gitStore is a gitobj.Storer that reads and writes objects with git.
type gitStore struct {
	t   *testing.T
	dir string
}

func (s gitStore) EncodedObject(typ gitobj.ObjectType, h gitobj.Hash) (gitobj.EncodedObject, error) {
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = s.dir
	cmd.Stdin = strings.NewReader(h.String() + "\n")
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	head, data, _ := strings.Cut(string(out), "\n")
	f := strings.Fields(head)
	if len(f) != 3 || typ != gitobj.AnyObject && f[1] != typ.String() {
		return nil, gitobj.ErrObjectNotFound
	}
	data = strings.TrimSuffix(data, "\n") // cat-file ends each object with one
	o := &gitobj.MemoryObject{}
	t, err := gitobj.ParseObjectType(f[1])
	if err != nil {
		return nil, err
	}
	o.SetType(t)
	o.Write([]byte(data))
	return o, nil
}

func (s gitStore) HasEncodedObject(h gitobj.Hash) error {
	_, err := s.EncodedObject(gitobj.AnyObject, h)
	return err
}

func (s gitStore) NewEncodedObject() gitobj.EncodedObject { return &gitobj.MemoryObject{} }

func (s gitStore) SetEncodedObject(o gitobj.EncodedObject) (gitobj.Hash, error) {
	r, _ := o.Reader()
	b, _ := io.ReadAll(r)
	return gitobj.NewHash(git(s.t, s.dir, string(b), "hash-object", "-w", "--literally", "-t", o.Type().String(), "--stdin")), nil
}

func TestCommitFromGit(t *testing.T) {
	dir, st := repo(t)
	blob := git(t, dir, "x\n", "hash-object", "-w", "--stdin")
	tree := git(t, dir, "100644 blob "+blob+"\tf\n", "mktree")
	root := git(t, dir, "", "commit-tree", tree, "-m", "root")
	other := git(t, dir, "", "commit-tree", tree, "-m", "other root")
	second := git(t, dir, "", "commit-tree", tree, "-p", root, "-p", other, "-m", "two\n\nbody line\n\nUwf-Step: x")
	// Headers git-uwf does not read, a signature among them, and a
	// message that holds a blank line.
	odd := "tree " + tree + "\nparent " + second + "\nauthor A <a@x> 1700000000 +0000\ncommitter B <b@x> 1700000200 +0200\n" +
		"encoding ISO-8859-1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsubject\n\nbody\n"
	third := git(t, dir, odd, "hash-object", "-t", "commit", "-w", "--stdin", "--literally")
	headerOnly := git(t, dir, "tree "+tree+"\n", "hash-object", "-t", "commit", "-w", "--stdin", "--literally")

	c, err := gitobj.GetCommit(st, gitobj.NewHash(headerOnly))
	if err != nil || c.TreeHash.String() != tree || c.ParentHashes != nil || c.Message != "" || c.Author != (gitobj.Signature{}) {
		t.Errorf("header-only commit = %+v, %v", c, err)
	}

	for _, oid := range []string{root, second, third} {
		t.Run(oid[:8], func(t *testing.T) {
			c, err := gitobj.GetCommit(st, gitobj.NewHash(oid))
			if err != nil {
				t.Fatal(err)
			}
			if c.Hash.String() != oid || c.TreeHash.String() != tree {
				t.Errorf("hash %s tree %s, want %s %s", c.Hash, c.TreeHash, oid, tree)
			}
			var parents []string
			for _, p := range c.ParentHashes {
				parents = append(parents, p.String())
			}
			if want := strings.Fields(git(t, dir, "", "show", "-s", "--format=%P", oid)); !slices.Equal(parents, want) {
				t.Errorf("parents %v, want %v", parents, want)
			}
			want := git(t, dir, "", "show", "-s", "--format=%an|%ae|%ad|%cn|%ce|%cd", "--date=iso-strict", oid)
			got := strings.Join([]string{c.Author.Name, c.Author.Email, isoOrEmpty(c.Author.When),
				c.Committer.Name, c.Committer.Email, isoOrEmpty(c.Committer.When)}, "|")
			if got != want {
				t.Errorf("signatures %q, want %q", got, want)
			}
			raw := git(t, dir, "", "cat-file", "commit", oid)
			_, msg, _ := strings.Cut(raw+"\n", "\n\n")
			if c.Message != msg {
				t.Errorf("message %q, want %q", c.Message, msg)
			}
		})
	}
}

func isoOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("2006-01-02T15:04:05-07:00")
}

func TestCommitEncodeMatchesGit(t *testing.T) {
	dir, st := repo(t)
	tree := git(t, dir, "", "mktree")
	parent := git(t, dir, "", "commit-tree", tree, "-m", "p")
	want := git(t, dir, "", "commit-tree", tree, "-p", parent, "-m", "subject\n\nbody\n\nUwf-Thread: t")
	c := &gitobj.Commit{
		TreeHash:     gitobj.NewHash(tree),
		ParentHashes: []gitobj.Hash{gitobj.NewHash(parent)},
		Author:       gitobj.Signature{Name: "A U Thor", Email: "author@example.com", When: time.Unix(1700000000, 0).In(time.FixedZone("", 90*60))},
		Committer:    gitobj.Signature{Name: "C O Mitter", Email: "committer@example.com", When: time.Unix(1700000100, 0).In(time.FixedZone("", -8*3600))},
		Message:      "subject\n\nbody\n\nUwf-Thread: t\n",
	}
	o := st.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		t.Fatal(err)
	}
	if o.Hash().String() != want {
		t.Errorf("encoded commit %s, git wrote %s:\n%s", o.Hash(), want, c.Bytes())
	}
	back, err := gitobj.DecodeCommit(o)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Bytes(), c.Bytes()) {
		t.Errorf("decode(encode(c)) differs:\n%s\n---\n%s", back.Bytes(), c.Bytes())
	}
}

func TestTreeMatchesGit(t *testing.T) {
	dir, st := repo(t)
	blob := git(t, dir, "x\n", "hash-object", "-w", "--stdin")
	sub := git(t, dir, "100644 blob "+blob+"\tinner\n", "mktree")
	// "a" as a directory sorts after "a.b" and "a-c" (as "a/"), a file "b"
	// before "b.c".
	entries := []gitobj.TreeEntry{
		{Name: "b.c", Mode: gitobj.ModeRegular, Hash: gitobj.NewHash(blob)},
		{Name: "a", Mode: gitobj.ModeDir, Hash: gitobj.NewHash(sub)},
		{Name: "b", Mode: gitobj.ModeExecutable, Hash: gitobj.NewHash(blob)},
		{Name: "a.b", Mode: gitobj.ModeRegular, Hash: gitobj.NewHash(blob)},
		{Name: "a-c", Mode: gitobj.ModeRegular, Hash: gitobj.NewHash(blob)},
	}
	var mk strings.Builder
	for _, e := range entries {
		typ := "blob"
		if e.Mode == gitobj.ModeDir {
			typ = "tree"
		}
		mk.WriteString(e.Mode.String()[1:] + " " + typ + " " + e.Hash.String() + "\t" + e.Name + "\n")
	}
	want := git(t, dir, mk.String(), "mktree")

	tr := &gitobj.Tree{Entries: slices.Clone(entries)}
	if err := tr.Encode(st.NewEncodedObject()); !errors.Is(err, gitobj.ErrUnsorted) {
		t.Errorf("Encode of unsorted entries = %v, want ErrUnsorted", err)
	}
	gitobj.SortEntries(tr.Entries)
	o := st.NewEncodedObject()
	if err := tr.Encode(o); err != nil {
		t.Fatal(err)
	}
	if o.Hash().String() != want {
		t.Fatalf("encoded tree %s, git wrote %s", o.Hash(), want)
	}

	top, err := gitobj.GetTree(st, gitobj.NewHash(want))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(top.Entries, tr.Entries) {
		t.Errorf("read entries %v, want %v", top.Entries, tr.Entries)
	}
	for _, tt := range []struct {
		path    string
		want    string
		wantErr error
	}{
		{"a", sub, nil},
		{"a/inner", blob, nil},
		{"b", blob, nil},
		{"a-c", blob, nil},
		{"c", "", gitobj.ErrEntryNotFound},
		{"a/missing", "", gitobj.ErrEntryNotFound},
		{"b/inner", "", gitobj.ErrDirectoryNotFound},
		{"z/inner", "", gitobj.ErrDirectoryNotFound},
	} {
		e, err := gitobj.FindEntry(st, top, tt.path)
		if !errors.Is(err, tt.wantErr) || (err == nil && e.Hash.String() != tt.want) {
			t.Errorf("FindEntry(%q) = %s, %v; want %s, %v", tt.path, e.Hash, err, tt.want, tt.wantErr)
		}
	}
	if s, err := gitobj.Subtree(st, top, "a"); err != nil || len(s.Entries) != 1 || s.Entries[0].Name != "inner" {
		t.Errorf("Subtree(a) = %v, %v", s, err)
	}
	if _, err := gitobj.Subtree(st, top, "nope"); !errors.Is(err, gitobj.ErrDirectoryNotFound) {
		t.Errorf("Subtree(nope) error = %v, want ErrDirectoryNotFound", err)
	}
}

func TestParseTreeRejects(t *testing.T) {
	var oid [20]byte
	for _, tt := range []struct{ name, data string }{
		{"no mode", "100644"},
		{"bad mode", "10x644 f\x00" + string(oid[:])},
		{"no terminator", "100644 f"},
		{"empty name", "100644 \x00" + string(oid[:])},
		{"truncated id", "100644 f\x00" + string(oid[:10])},
	} {
		if _, err := gitobj.ParseTree([]byte(tt.data)); !errors.Is(err, gitobj.ErrMalformed) {
			t.Errorf("%s: ParseTree error = %v, want ErrMalformed", tt.name, err)
		}
	}
	for _, tt := range []struct{ name, data string }{
		{"tree not first", "parent 0000000000000000000000000000000000000000\ntree 0000000000000000000000000000000000000000\n\nm"},
		{"bad tree hash", "tree 1234\n\nm"},
		{"bad parent hash", "tree 0000000000000000000000000000000000000000\nparent zz\n\nm"},
		{"40 characters, not all hex", "tree 000000000000000000000000000000000000000g\n\nm"},
		{"41 hex digits", "tree 00000000000000000000000000000000000000000\n\nm"},
	} {
		if _, err := gitobj.ParseCommit([]byte(tt.data)); !errors.Is(err, gitobj.ErrMalformed) {
			t.Errorf("%s: ParseCommit error = %v, want ErrMalformed", tt.name, err)
		}
	}
	// Hex digits of either case, as IsHash takes them.
	upper := "ABCDEF0123456789abcdef0123456789ABCDEF01"
	c, err := gitobj.ParseCommit([]byte("tree " + upper + "\nparent " + upper + "\n\nm"))
	if err != nil || c.TreeHash != gitobj.NewHash(upper) || len(c.ParentHashes) != 1 || c.ParentHashes[0] != gitobj.NewHash(upper) {
		t.Errorf("ParseCommit of upper-case ids = %+v, %v", c, err)
	}
}

func TestTagTarget(t *testing.T) {
	dir, st := repo(t)
	tree := git(t, dir, "", "mktree")
	c := git(t, dir, "", "commit-tree", tree, "-m", "c")
	git(t, dir, "", "tag", "-a", "-m", "annotated", "v1", c)
	tag := git(t, dir, "", "rev-parse", "v1")
	o, err := st.EncodedObject(gitobj.TagObject, gitobj.NewHash(tag))
	if err != nil {
		t.Fatal(err)
	}
	got, err := gitobj.TagTarget(o)
	if err != nil || got.String() != c {
		t.Errorf("TagTarget = %s, %v; want %s", got, err, c)
	}
}

func TestParseSignature(t *testing.T) {
	for _, tt := range []struct {
		in, name, email string
		when            string // RFC 3339, "" for zero
	}{
		{"A B <a@b> 1700000000 +0530", "A B", "a@b", "2023-11-15T03:43:20+05:30"},
		{"A <a@b> 1700000000 -0130", "A", "a@b", "2023-11-14T20:43:20-01:30"},
		{"A <b> <a@b> 1700000000 +0100", "A <b>", "a@b", "2023-11-14T23:13:20+01:00"},
		{"A <a@b> 1700000000", "A", "a@b", "2023-11-14T22:13:20+00:00"},
		{"A <a@b>", "A", "a@b", ""},
		{"A <a@b> soon +0000", "A", "a@b", ""},
		{"no email", "", "", ""},
	} {
		s := gitobj.ParseSignature([]byte(tt.in))
		if s.Name != tt.name || s.Email != tt.email || isoOrEmpty(s.When) != tt.when {
			t.Errorf("ParseSignature(%q) = %q %q %q; want %q %q %q", tt.in, s.Name, s.Email, isoOrEmpty(s.When), tt.name, tt.email, tt.when)
		}
		if when := gitobj.SignatureTime([]byte(tt.in)); !when.Equal(s.When) || when.Location().String() != s.When.Location().String() || isoOrEmpty(when) != tt.when {
			t.Errorf("SignatureTime(%q) = %s; ParseSignature's time is %s", tt.in, isoOrEmpty(when), isoOrEmpty(s.When))
		}
	}
}

func TestSortEntriesAndLookup(t *testing.T) {
	names := []string{"a", "a.b", "a-", "a/", "ab", "a0", "b", "", "Z", "a~", "aa"}
	var entries []gitobj.TreeEntry
	for i, n := range names {
		if n == "" || strings.Contains(n, "/") {
			continue
		}
		for _, mode := range []gitobj.FileMode{gitobj.ModeRegular, gitobj.ModeDir} {
			if mode == gitobj.ModeDir && i%2 == 0 {
				n += "d" // a directory and a file never share a name in one tree
			}
			entries = append(entries, gitobj.TreeEntry{Name: n, Mode: mode, Hash: gitobj.Hash{byte(len(entries))}})
		}
	}
	// Drop duplicates of a name: git trees hold each name once.
	seen := map[string]bool{}
	entries = slices.DeleteFunc(entries, func(e gitobj.TreeEntry) bool {
		dup := seen[e.Name]
		seen[e.Name] = true
		return dup
	})
	key := func(e gitobj.TreeEntry) string {
		if e.Mode == gitobj.ModeDir {
			return e.Name + "/"
		}
		return e.Name
	}
	got := slices.Clone(entries)
	gitobj.SortEntries(got)
	want := slices.Clone(entries)
	slices.SortFunc(want, func(a, b gitobj.TreeEntry) int { return strings.Compare(key(a), key(b)) })
	if !slices.Equal(got, want) {
		t.Fatalf("SortEntries = %v, want %v", got, want)
	}

	sorted := &gitobj.Tree{Entries: got}
	raw, err := sorted.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	fromSorted, err := gitobj.ParseTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	// The same entries out of order (a malformed tree git would not
	// write) are still found, by a linear search.
	var unsortedRaw []byte
	for _, e := range slices.Backward(got) {
		one, err := (&gitobj.Tree{Entries: []gitobj.TreeEntry{e}}).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		unsortedRaw = append(unsortedRaw, one...)
	}
	fromUnsorted, err := gitobj.ParseTree(unsortedRaw)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []*gitobj.Tree{fromSorted, fromUnsorted} {
		for _, e := range entries {
			if got, ok := tr.Entry(e.Name); !ok || got != e {
				t.Errorf("Entry(%q) = %v, %v; want %v", e.Name, got, ok, e)
			}
		}
		for _, missing := range []string{"a.", "a/b", "zz", "A"} {
			if got, ok := tr.Entry(missing); ok {
				t.Errorf("Entry(%q) = %v, want none", missing, got)
			}
		}
	}
}
