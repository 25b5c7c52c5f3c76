package gitobj_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// TestComputeHashMatchesGit checks ids against git hash-object.
func TestComputeHashMatchesGit(t *testing.T) {
	dir, _ := repo(t)
	tests := []struct {
		typ     gitobj.ObjectType
		content string
	}{
		{gitobj.BlobObject, ""},
		{gitobj.BlobObject, "hello\n"},
		{gitobj.BlobObject, strings.Repeat("x", 100000)},
		{gitobj.CommitObject, "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <a> 1 +0000\ncommitter a <a> 1 +0000\n\nm\n"},
	}
	for _, tt := range tests {
		want := git(t, dir, tt.content, "hash-object", "-t", tt.typ.String(), "--stdin")
		got := gitobj.ComputeHash(tt.typ, []byte(tt.content))
		if got.String() != want {
			t.Errorf("ComputeHash(%s, %d bytes) = %s, git says %s", tt.typ, len(tt.content), got, want)
		}
		if !gitobj.IsHash(want) || gitobj.NewHash(want) != got {
			t.Errorf("NewHash(%s) = %s", want, gitobj.NewHash(want))
		}
	}
}

func TestHashParsing(t *testing.T) {
	tests := []struct {
		in     string
		isHash bool
	}{
		{"4b825dc642cb6eb9a060e54bf8d69288fbee4904", true},
		{"4B825DC642CB6EB9A060E54BF8D69288FBEE4904", true},
		{"4b825dc642cb6eb9a060e54bf8d69288fbee490", false},
		{"4b825dc642cb6eb9a060e54bf8d69288fbee4904ab", false},
		{"4b825dc642cb6eb9a060e54bf8d69288fbee490g", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := gitobj.IsHash(tt.in); got != tt.isHash {
			t.Errorf("IsHash(%q) = %v", tt.in, got)
		}
		if tt.isHash && gitobj.NewHash(tt.in).String() != strings.ToLower(tt.in) {
			t.Errorf("NewHash(%q) = %s", tt.in, gitobj.NewHash(tt.in))
		}
	}
	if !gitobj.NewHash("not hex").IsZero() || !gitobj.ZeroHash.IsZero() {
		t.Error("NewHash of no hex is not zero")
	}
}

// TestHashStringAllocs: String costs one allocation, its result (a cold
// listing formats two ids a thread).
func TestHashStringAllocs(t *testing.T) {
	h := gitobj.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
	var s string
	if n := testing.AllocsPerRun(100, func() { s = h.String() }); n != 1 {
		t.Errorf("Hash.String makes %v allocations; want 1", n)
	}
	if s != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Errorf("Hash.String = %s", s)
	}
}

func TestObjectTypeNames(t *testing.T) {
	for _, typ := range []gitobj.ObjectType{gitobj.CommitObject, gitobj.TreeObject, gitobj.BlobObject, gitobj.TagObject, gitobj.OFSDeltaObject, gitobj.REFDeltaObject} {
		got, err := gitobj.ParseObjectType(typ.String())
		if err != nil || got != typ {
			t.Errorf("ParseObjectType(%q) = %v, %v", typ.String(), got, err)
		}
	}
	for _, name := range []string{"", "any", "Blob", "unknown"} {
		if _, err := gitobj.ParseObjectType(name); !errors.Is(err, gitobj.ErrInvalidType) {
			t.Errorf("ParseObjectType(%q) error = %v", name, err)
		}
	}
}

func TestMemoryObject(t *testing.T) {
	o := &gitobj.MemoryObject{}
	o.SetType(gitobj.BlobObject)
	w, _ := o.Writer()
	io.WriteString(w, "hel")
	if want := gitobj.ComputeHash(gitobj.BlobObject, []byte("hel")); o.Hash() != want {
		t.Errorf("Hash after one write = %s, want %s", o.Hash(), want)
	}
	io.WriteString(w, "lo\n")
	w.Close()
	if want := gitobj.ComputeHash(gitobj.BlobObject, []byte("hello\n")); o.Hash() != want || o.Size() != 6 {
		t.Errorf("Hash = %s, Size = %d; want %s, 6", o.Hash(), o.Size(), want)
	}
	r, _ := o.Reader()
	if b, _ := io.ReadAll(r); string(b) != "hello\n" || string(o.Bytes()) != "hello\n" {
		t.Errorf("content %q", b)
	}
	if gitobj.ModeDir.String() != "0040000" || gitobj.ModeRegular.String() != "0100644" {
		t.Errorf("mode strings %s %s", gitobj.ModeDir, gitobj.ModeRegular)
	}
}
