package objects

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	gogit "github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// historyRepo returns a git dir holding a history of similar files (so
// that a repack stores most of them as deltas), packed by repack with the
// given extra git options, and the ids of all its objects.
func historyRepo(t *testing.T, gitOpts ...string) (string, []gitobj.Hash) {
	t.Helper()
	dir, gitDir := newGitRepo(t)
	var body strings.Builder
	for i := range 200 {
		fmt.Fprintf(&body, "line %d of a file that changes a little in every commit\n", i)
	}
	for c := range 30 {
		fmt.Fprintf(&body, "commit %d appends this line\n", c)
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(body.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, "sub")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d", c%4)), []byte(strings.Repeat(fmt.Sprintf("%d ", c), 100+c)), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", fmt.Sprintf("commit %d", c))
	}
	git(t, dir, "tag", "-a", "-m", "a tag", "v1")
	git(t, dir, append(gitOpts, "repack", "-adf", "-q", "--depth=50", "--window=50")...)
	git(t, dir, "prune-packed")
	var oids []gitobj.Hash
	for _, line := range strings.Split(git(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"), "\n") {
		oids = append(oids, gitobj.NewHash(line))
	}
	return gitDir, oids
}

// deltaCount is how many objects of the repository's packs are deltas.
func deltaCount(t *testing.T, gitDir string) int {
	t.Helper()
	idx, err := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.idx"))
	if err != nil || len(idx) == 0 {
		t.Fatalf("no pack index: %v", err)
	}
	n := 0
	for _, line := range strings.Split(git(t, gitDir, "verify-pack", "-v", idx[0]), "\n") {
		// "<oid> <type> <size> <packed size> <offset> <depth> <base>"
		if f := strings.Fields(line); len(f) == 7 && len(f[0]) == 40 {
			n++
		}
	}
	return n
}

// goGitObject reads h through go-git's own filesystem storage.
func goGitObject(t *testing.T, gitDir string, h gitobj.Hash) (gitobj.ObjectType, []byte) {
	t.Helper()
	st := filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRUDefault())
	obj, err := st.EncodedObject(gogit.AnyObject, gogit.Hash(h))
	if err != nil {
		t.Fatalf("go-git read %s: %v", h, err)
	}
	return gitobj.ObjectType(obj.Type()), objectBytes(t, obj)
}

// objectBytes reads the content of an object, ours or go-git's.
func objectBytes(t *testing.T, obj interface{ Reader() (io.ReadCloser, error) }) []byte {
	t.Helper()
	rc, err := obj.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPackedReadMatchesGoGit(t *testing.T) {
	tests := []struct {
		name string
		opts []string
	}{
		{"offset deltas", nil},
		{"deltas naming their base by id", []string{"-c", "repack.useDeltaBaseOffset=false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gitDir, oids := historyRepo(t, tt.opts...)
			if n := deltaCount(t, gitDir); n < 20 {
				t.Fatalf("only %d deltas in the pack; the test needs a deltified pack", n)
			}
			p := &packIndexes{dir: filepath.Join(gitDir, "objects", "pack")}
			types := map[gitobj.ObjectType]int{}
			for _, h := range oids {
				obj, err := p.object(h)
				if err != nil {
					t.Fatalf("object(%s): %v", h, err)
				}
				typ, want := goGitObject(t, gitDir, h)
				got := objectBytes(t, obj)
				if obj.Type() != typ || obj.Size() != int64(len(want)) || !bytes.Equal(got, want) {
					t.Fatalf("object(%s) = %s of %d bytes; go-git reads %s of %d bytes", h, obj.Type(), obj.Size(), typ, len(want))
				}
				if obj.Hash() != h {
					t.Fatalf("object(%s) hashes to %s", h, obj.Hash())
				}
				types[typ]++
			}
			for _, typ := range []gitobj.ObjectType{gitobj.BlobObject, gitobj.TreeObject, gitobj.CommitObject, gitobj.TagObject} {
				if types[typ] == 0 {
					t.Errorf("no %s read", typ)
				}
			}
			missing := gitobj.ComputeHash(gitobj.BlobObject, []byte("not stored"))
			if _, err := p.object(missing); !errors.Is(err, gitobj.ErrObjectNotFound) {
				t.Fatalf("object(missing) error = %v; want ErrObjectNotFound", err)
			}
		})
	}
}

// packedStorer opens the object database of gitDir as Store does.
func packedStorer(t *testing.T, gitDir string) *DB {
	t.Helper()
	db, err := OpenDB(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestDBPackedReads(t *testing.T) {
	tests := []struct {
		name  string
		limit int64 // of the pack reader; objects over it are read by git cat-file
	}{
		{"read by the pack reader", 0},
		{"over the size limit: git cat-file", 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gitDir, oids := historyRepo(t)
			r := packedStorer(t, gitDir)
			r.packs.limit = tt.limit
			for _, h := range oids {
				typ, want := goGitObject(t, gitDir, h)
				obj, err := r.EncodedObject(gitobj.AnyObject, h)
				if err != nil {
					t.Fatalf("EncodedObject(%s): %v", h, err)
				}
				if obj.Size() != int64(len(want)) {
					t.Fatalf("EncodedObject(%s) has size %d; want %d", h, obj.Size(), len(want))
				}
				if obj.Type() != typ || !bytes.Equal(objectBytes(t, obj), want) {
					t.Fatalf("EncodedObject(%s) differs from go-git's read", h)
				}
				other := gitobj.BlobObject
				if typ == gitobj.BlobObject {
					other = gitobj.TreeObject
				}
				if _, err := r.EncodedObject(other, h); !errors.Is(err, gitobj.ErrObjectNotFound) {
					t.Fatalf("EncodedObject(%s, %s) error = %v; want ErrObjectNotFound", other, h, err)
				}
			}
		})
	}
}

// TestPackedReadAfterRepack reads objects from a pack that a repack has
// replaced since the storer listed the packs.
func TestPackedReadAfterRepack(t *testing.T) {
	gitDir, oids := historyRepo(t)
	r := packedStorer(t, gitDir)
	if _, err := r.EncodedObject(gitobj.AnyObject, oids[0]); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.pack"))
	git(t, filepath.Dir(gitDir), "repack", "-adf", "-q", "--depth=10")
	after, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.pack"))
	if len(before) != 1 || len(after) != 1 || before[0] == after[0] {
		t.Fatalf("repack did not replace the pack: %v, then %v", before, after)
	}
	for _, h := range oids[1:] {
		obj, err := r.EncodedObject(gitobj.AnyObject, h)
		if err != nil {
			t.Fatalf("after repack: EncodedObject(%s): %v", h, err)
		}
		if obj.Hash() != h {
			t.Fatalf("after repack: EncodedObject(%s) hashes to %s", h, obj.Hash())
		}
	}
	// The pack reader itself found them in the new pack.
	if _, err := r.packs.object(oids[len(oids)-1]); err != nil {
		t.Fatalf("after repack: object: %v", err)
	}
}

// TestPackedReadDamaged checks that a damaged entry is an error of both
// pack readers, the store's (which then sends the read to git cat-file)
// and the bulk ObjectReader, never a wrong object and never "not found".
func TestPackedReadDamaged(t *testing.T) {
	gitDir, oids := packedRepo(t, 1, 2)
	packDir := filepath.Join(gitDir, "objects", "pack")
	idx, off, found, err := (&packIndexes{dir: packDir}).locate(oids[0])
	if err != nil || !found {
		t.Fatalf("locate: %v, %v", found, err)
	}
	pack := strings.TrimSuffix(idx, ".idx") + ".pack"
	data, err := os.ReadFile(pack)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		damage func([]byte)
	}{
		{"content", func(b []byte) { b[off+4] ^= 0x01 }},
		{"size", func(b []byte) { b[off]++ }},
		{"type", func(b []byte) { b[off] = b[off]&0x8f | 5<<4 }},
		{"offset delta pointing before the pack", func(b []byte) { b[off] = b[off]&0x8f | byte(gitobj.OFSDeltaObject)<<4; b[off+1] = 0x7f }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Clone(data)
			tt.damage(b)
			if err := os.Chmod(pack, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(pack, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if obj, err := (&packIndexes{dir: packDir}).object(oids[0]); err == nil {
				t.Fatalf("pack reader: damaged pack read as %s %q", obj.Type(), objectBytes(t, obj))
			} else if errors.Is(err, gitobj.ErrObjectNotFound) {
				t.Fatalf("pack reader: %v; want an error other than not found", err)
			}
			typ, got, err := objectReader(t, gitDir).Read(oids[0])
			if err == nil {
				t.Fatalf("ObjectReader: damaged pack read as %s %q", typ, got)
			}
			if errors.Is(err, gitobj.ErrObjectNotFound) {
				t.Fatalf("ObjectReader: %v; want an error other than not found", err)
			}
		})
	}
}

// TestIdxLargeOffsets reads offsets from a synthetic version 2 index whose
// pack is over 4 GiB: offsets with the high bit set index the table of
// 64-bit offsets.
func TestIdxLargeOffsets(t *testing.T) {
	names := []gitobj.Hash{
		gitobj.NewHash("0a" + strings.Repeat("11", 19)),
		gitobj.NewHash("0a" + strings.Repeat("22", 19)),
		gitobj.NewHash("7f" + strings.Repeat("33", 19)),
		gitobj.NewHash("ff" + strings.Repeat("44", 19)),
	}
	offsets := []int64{12, 5 << 32, 1<<31 - 1, 1<<40 + 7}
	dir := writeIdx(t, names, offsets)
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			p := &packIndexes{dir: dir}
			if !mapped {
				// Open the index, then read it as where it cannot be
				// mapped.
				if _, _, _, err := p.locate(names[0]); err != nil {
					t.Fatal(err)
				}
				for _, pf := range p.files {
					pf.mapped = nil
				}
			}
			for i, h := range names {
				_, off, found, err := p.locate(h)
				if err != nil || !found || off != offsets[i] {
					t.Errorf("locate(%s) = %d, %v, %v; want %d", h, off, found, err, offsets[i])
				}
			}
			if _, _, found, err := p.locate(gitobj.NewHash("0a" + strings.Repeat("12", 19))); found || err != nil {
				t.Errorf("locate(absent) = %v, %v", found, err)
			}
		})
	}
}
