package objects

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// TestObjectReaderMatchesGoGit reads every object of a deltified pack,
// and loose objects beside it, as go-git does, also when the mapped pages
// are let go after every read.
func TestObjectReaderMatchesGoGit(t *testing.T) {
	tests := []struct {
		name       string
		maxWindows int
	}{
		{"default", maxWindows},
		{"pages let go after every read", 1},
	}
	gitDir, oids := historyRepo(t)
	dir := filepath.Dir(gitDir)
	for i := range 3 {
		h := strings.TrimSpace(gitStdin(t, dir, fmt.Sprintf("loose object %d\n", i), "hash-object", "-w", "--stdin"))
		oids = append(oids, gitobj.NewHash(h))
	}
	if n := deltaCount(t, gitDir); n < 20 {
		t.Fatalf("only %d deltas in the pack; the test needs a deltified pack", n)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewObjectReader(filepath.Join(gitDir, "objects"))
			r.maxWindows = tt.maxWindows
			// Twice: the second time, chains of deltas start from the
			// bases kept the first time.
			for _, h := range append(slices.Clone(oids), oids...) {
				typ, data, err := r.Read(h)
				if err != nil {
					t.Fatalf("Read(%s): %v", h, err)
				}
				wantType, want := goGitObject(t, gitDir, h)
				if typ != wantType || !bytes.Equal(data, want) {
					t.Fatalf("Read(%s) = %s of %d bytes; go-git reads %s of %d bytes", h, typ, len(data), wantType, len(want))
				}
			}
			missing := gitobj.ComputeHash(gitobj.BlobObject, []byte("not stored"))
			if _, _, err := r.Read(missing); !errors.Is(err, gitobj.ErrObjectNotFound) {
				t.Fatalf("Read(missing) error = %v; want ErrObjectNotFound", err)
			}
		})
	}
}

// TestObjectReaderAfterRepack reads objects that a repack moved from the
// pack the reader had open (and deleted) and from loose files into a new
// pack.
func TestObjectReaderAfterRepack(t *testing.T) {
	gitDir, oids := historyRepo(t)
	dir := filepath.Dir(gitDir)
	loose := gitobj.NewHash(strings.TrimSpace(gitStdin(t, dir, "loose, then packed\n", "hash-object", "-w", "--stdin")))
	git(t, dir, "tag", "keep", loose.String())
	r := NewObjectReader(filepath.Join(gitDir, "objects"))
	if _, _, err := r.Read(oids[0]); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "repack", "-adf", "-q")
	git(t, dir, "prune-packed")
	for _, h := range append(oids, loose) {
		if _, _, err := r.Read(h); err != nil {
			t.Fatalf("after repack: Read(%s): %v", h, err)
		}
	}
}

// TestObjectReaderDamagedLoose checks that a damaged loose object is an
// error, never a wrong object or a miss.
func TestObjectReaderDamagedLoose(t *testing.T) {
	deflate := func(s string) []byte {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	tests := []struct {
		name string
		file []byte
	}{
		{"not zlib", []byte("plain text")},
		{"no header", deflate("just content")},
		{"unknown type", deflate("thing 3\x00abc")},
		{"delta type", deflate("ofs-delta 3\x00abc")},
		{"size too large", deflate("blob 9\x00abc")},
		{"size too small", deflate("blob 2\x00abc")},
		{"size not a number", deflate("blob x\x00abc")},
		{"truncated stream", deflate("blob 3\x00abc")[:8]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, gitDir := newGitRepo(t)
			h := gitobj.Hash(sha1.Sum([]byte(tt.name)))
			path := filepath.Join(gitDir, "objects", h.String()[:2], h.String()[2:])
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tt.file, 0o444); err != nil {
				t.Fatal(err)
			}
			typ, data, err := NewObjectReader(filepath.Join(gitDir, "objects")).Read(h)
			if err == nil || errors.Is(err, gitobj.ErrObjectNotFound) {
				t.Fatalf("Read = %s %q, %v; want a damage error", typ, data, err)
			}
		})
	}
}

// FuzzParseLooseFile checks that any loose object file is parsed or refused
// without a panic, and that what is parsed has the size its header says.
func FuzzParseLooseFile(f *testing.F) {
	for _, s := range []string{"blob 3\x00abc", "commit 0\x00", "tree 01\x00x", "blob 3\x00ab", "tag -1\x00"} {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		typ, data, err := parseLoose(raw, 1<<20)
		if err != nil {
			return
		}
		head := fmt.Sprintf("%s %d\x00", typ, len(data))
		all, err := inflatePrefix(raw, len(head)+len(data)+1)
		if err != nil || string(all) != head+string(data) {
			t.Fatalf("parsed %s of %d bytes from a stream that inflates to %q", typ, len(data), all)
		}
	})
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
			p := &packIndexes{dir: writeIdx(t, names)}
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
// offset 10*i, into a new directory, and returns the directory.
func writeIdx(t *testing.T, names []gitobj.Hash) string {
	t.Helper()
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
	for i := range names {
		be(uint32(10 * i))
	}
	b.Write(make([]byte, 40)) // pack and index checksums
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pack-synthetic.idx"), b.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDeltaBasesBounded fills the cache of delta bases past its size and
// checks that it keeps to it, answers only for the pack and offset an
// object was kept for, and that a nil cache keeps nothing.
func TestDeltaBasesBounded(t *testing.T) {
	var c deltaBases
	packA, packB := &packFile{}, &packFile{}
	big := make([]byte, deltaBasesSize/16)
	for i := range 4 * deltaBaseSlots {
		c.put(packA, int64(i)*100, gitobj.BlobObject, big)
		if c.size > deltaBasesSize {
			t.Fatalf("after %d puts the cache holds %d bytes, over %d", i+1, c.size, deltaBasesSize)
		}
	}
	c.put(packA, 7, gitobj.TreeObject, []byte("small"))
	if typ, data, ok := c.get(packA, 7); !ok || typ != gitobj.TreeObject || string(data) != "small" {
		t.Fatalf("get = %s %q %v", typ, data, ok)
	}
	if _, _, ok := c.get(packB, 7); ok {
		t.Fatal("an object kept for one pack is found in another")
	}
	if _, _, ok := c.get(packA, 8); ok {
		t.Fatal("an object is found at another offset")
	}
	c.put(packA, 9, gitobj.BlobObject, make([]byte, deltaBasesSize/16+1))
	if _, _, ok := c.get(packA, 9); ok {
		t.Fatal("an object over a sixteenth of the cache was kept")
	}
	var none *deltaBases
	none.put(packA, 1, gitobj.BlobObject, []byte("x"))
	if _, _, ok := none.get(packA, 1); ok {
		t.Fatal("a nil cache kept an object")
	}
}
