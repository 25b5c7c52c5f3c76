package objects

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// packedRepo returns a git dir whose n blobs all live in one pack (indexed
// with the given .idx version), and their ids.
func packedRepo(t *testing.T, n, idxVersion int) (string, []gitobj.Hash) {
	t.Helper()
	dir, gitDir := newGitRepo(t)
	var input strings.Builder
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("f%d", i))
		if err := os.WriteFile(name, []byte(fmt.Sprintf("blob %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		input.WriteString(name + "\n")
	}
	var oids []gitobj.Hash
	for _, line := range strings.Fields(gitStdin(t, dir, input.String(), "hash-object", "-w", "--stdin-paths")) {
		oids = append(oids, gitobj.NewHash(line))
	}
	list := strings.Join(hexes(oids), "\n") + "\n"
	gitStdin(t, dir, list, "pack-objects", "-q", fmt.Sprintf("--index-version=%d", idxVersion), filepath.Join(gitDir, "objects", "pack", "pack"))
	git(t, dir, "prune-packed")
	return gitDir, oids
}

func hexes(oids []gitobj.Hash) []string {
	out := make([]string, len(oids))
	for i, h := range oids {
		out[i] = h.String()
	}
	return out
}

func TestPackIndexLookup(t *testing.T) {
	gitDir, oids := packedRepo(t, 300, 2)
	p := &packIndexes{dir: filepath.Join(gitDir, "objects", "pack")}
	for _, h := range oids {
		if ok, err := p.has(h); !ok || err != nil {
			t.Fatalf("has(%s) = %v, %v; want true", h, ok, err)
		}
	}
	absent := []gitobj.Hash{
		gitobj.ComputeHash(gitobj.BlobObject, []byte("not stored")),
		{}, // all zero: below every name
		gitobj.NewHash(strings.Repeat("f", 40)),
	}
	for _, h := range absent {
		if ok, err := p.has(h); ok || err != nil {
			t.Fatalf("has(%s) = %v, %v; want false", h, ok, err)
		}
	}
	// A repack replaces the pack: the old one's lookups miss until reset.
	git(t, filepath.Dir(gitDir), "repack", "-a", "-d", "-q", "--keep-unreachable")
	p.reset()
	if ok, err := p.has(oids[7]); !ok || err != nil {
		t.Fatalf("after repack: has = %v, %v", ok, err)
	}
	// No pack directory at all.
	empty := &packIndexes{dir: filepath.Join(t.TempDir(), "none")}
	if ok, err := empty.has(oids[0]); ok || err != nil {
		t.Fatalf("no packs: has = %v, %v", ok, err)
	}
}

func TestPackIndexVersion1(t *testing.T) {
	gitDir, oids := packedRepo(t, 20, 1)
	p := &packIndexes{dir: filepath.Join(gitDir, "objects", "pack")}
	if _, err := p.has(oids[0]); !errors.Is(err, errIdxFormat) {
		t.Fatalf("v1 index: err = %v, want errIdxFormat", err)
	}
}

func TestStorerHasAndCache(t *testing.T) {
	gitDir, oids := packedRepo(t, 10, 2)
	st := mustStorer(t, gitDir)
	for _, h := range oids {
		if err := st.HasEncodedObject(h); err != nil {
			t.Fatalf("packed %s: %v", h, err)
		}
	}
	// Written loose, then its file removed: this process wrote it, so it is
	// still answered (from the cache), without reading the file back.
	obj := st.NewEncodedObject()
	obj.SetType(gitobj.BlobObject)
	w, _ := obj.Writer()
	if _, err := w.Write([]byte("fresh\n")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	h, err := st.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	hex := h.String()
	loose := filepath.Join(gitDir, "objects", hex[:2], hex[2:])
	if _, err := os.Stat(loose); err != nil {
		t.Fatalf("not written loose: %v", err)
	}
	other := mustStorer(t, gitDir)
	if err := os.Remove(loose); err != nil {
		t.Fatal(err)
	}
	if err := st.HasEncodedObject(h); err != nil {
		t.Fatalf("written object: %v", err)
	}
	got, err := st.EncodedObject(gitobj.BlobObject, h)
	if err != nil || got.Hash() != h {
		t.Fatalf("written object: %v, %v", got, err)
	}
	if _, err := st.EncodedObject(gitobj.CommitObject, h); !errors.Is(err, gitobj.ErrObjectNotFound) {
		t.Fatalf("wrong type: %v", err)
	}
	// Another storer never saw it: the file is gone, so it is absent there.
	if err := other.HasEncodedObject(h); !errors.Is(err, gitobj.ErrObjectNotFound) {
		t.Fatalf("other storer: %v", err)
	}
}

// gitStdin runs git in dir with input on stdin and returns its stdout.
func gitStdin(t *testing.T, dir, input string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// TestIdxLookupSpread looks up every name of synthetic indexes whose names
// are spread evenly (as object ids are) and unevenly, so that the search
// around the place a name points at is checked both when it holds the name
// and when it does not.
func TestIdxLookupSpread(t *testing.T) {
	const n = 6000
	tests := []struct {
		name string
		make func(i int) gitobj.Hash
	}{
		{"even", func(i int) gitobj.Hash { return gitobj.Hash(sha1.Sum(fmt.Appendf(nil, "%d", i))) }},
		{"bunched", func(i int) gitobj.Hash {
			var h gitobj.Hash
			h[0] = byte(i % 3)
			binary.BigEndian.PutUint32(h[1:], uint32(i/3))
			return h
		}},
		{"sharing their first eight bytes", func(i int) gitobj.Hash {
			// Ordered only by their last twelve bytes, in both halves.
			h := gitobj.Hash{0: 0x42, 7: byte(i % 2)}
			binary.BigEndian.PutUint32(h[8:], uint32(i))
			binary.BigEndian.PutUint32(h[16:], 0xffffffff-uint32(i))
			return h
		}},
		{"bunched at the top", func(i int) gitobj.Hash {
			var h gitobj.Hash
			h[0] = 0xff
			binary.BigEndian.PutUint32(h[1:], 0xffffffff-uint32(i))
			h[19] = byte(i)
			return h
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names := make([]gitobj.Hash, n)
			for i := range names {
				names[i] = tt.make(i)
			}
			slices.SortFunc(names, func(a, b gitobj.Hash) int { return bytes.Compare(a[:], b[:]) })
			names = slices.Compact(names)
			p := &packIndexes{dir: writeIdx(t, names, nil)}
			for i, h := range names {
				_, off, found, err := p.locate(h)
				if err != nil || !found || off != int64(i)*10 {
					t.Fatalf("locate(%s) = %d, %v, %v; want %d", h, off, found, err, i*10)
				}
				absent := h
				absent[19] ^= 0x80
				if _, ok := slices.BinarySearchFunc(names, absent, func(a, b gitobj.Hash) int { return bytes.Compare(a[:], b[:]) }); ok {
					continue
				}
				if _, _, found, err := p.locate(absent); found || err != nil {
					t.Fatalf("locate(absent %s) = %v, %v", absent, found, err)
				}
			}
		})
	}
}

// writeIdx writes a version 2 index of names (sorted), the i'th at pack
// offset offsets[i] (10*i when offsets is nil; offsets of 2 GiB and more
// go to the table of 64-bit offsets), into a new directory, and returns
// the directory.
func writeIdx(t testing.TB, names []gitobj.Hash, offsets []int64) string {
	t.Helper()
	var small []uint32
	var large []uint64
	for i := range names {
		o := int64(10 * i)
		if offsets != nil {
			o = offsets[i]
		}
		if o < 1<<31 {
			small = append(small, uint32(o))
			continue
		}
		small = append(small, 0x80000000|uint32(len(large)))
		large = append(large, uint64(o))
	}
	var b bytes.Buffer
	b.Write(idxMagic)
	be := func(v any) {
		if err := binary.Write(&b, binary.BigEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	be(uint32(2))
	var fan [256]uint32
	for _, h := range names {
		for i := int(h[0]); i < 256; i++ {
			fan[i]++
		}
	}
	be(fan)
	for _, h := range names {
		b.Write(h[:])
	}
	be(make([]uint32, len(names))) // CRCs
	be(small)
	be(large)
	b.Write(make([]byte, 40)) // pack and index checksums
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pack-synthetic.idx"), b.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	return dir
}
