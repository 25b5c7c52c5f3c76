package objects

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// objectReader returns an ObjectReader of gitDir, as Store.ObjectReader makes it.
func objectReader(t *testing.T, gitDir string) *ObjectReader {
	t.Helper()
	r, ok := openDir(t, gitDir).ObjectReader()
	if !ok {
		t.Fatal("ObjectReader: not available on a directory store")
	}
	return r
}

// TestObjectReaderMatchesGoGit reads every object of deltified packs, and of
// a repository of loose objects, twice (the second time partly from the
// reader's cache of delta bases), and compares each with go-git's read.
func TestObjectReaderMatchesGoGit(t *testing.T) {
	loose := func(t *testing.T) (string, []gitobj.Hash) {
		dir, gitDir := newGitRepo(t)
		for c := range 5 {
			if err := os.WriteFile(filepath.Join(dir, "f"), []byte(strings.Repeat(fmt.Sprintf("%d\n", c), 50)), 0o644); err != nil {
				t.Fatal(err)
			}
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-q", "-m", fmt.Sprintf("commit %d", c))
		}
		git(t, dir, "tag", "-a", "-m", "a tag", "v1")
		if n, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.pack")); len(n) != 0 {
			t.Fatalf("packs in a repository of loose objects: %v", n)
		}
		var oids []gitobj.Hash
		for _, line := range strings.Split(git(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"), "\n") {
			oids = append(oids, gitobj.NewHash(line))
		}
		return gitDir, oids
	}
	tests := []struct {
		name   string
		setup  func(t *testing.T) (string, []gitobj.Hash)
		window int
	}{
		{"offset deltas", func(t *testing.T) (string, []gitobj.Hash) { return historyRepo(t) }, windowSize},
		// Reads of a few bytes: most entries cross the end of what one
		// read holds, and are read again from a longer stretch.
		{"offset deltas, entries across reads", func(t *testing.T) (string, []gitobj.Hash) { return historyRepo(t) }, 7},
		{"offset deltas, a byte a read", func(t *testing.T) (string, []gitobj.Hash) { return historyRepo(t) }, 1},
		{"deltas naming their base by id", func(t *testing.T) (string, []gitobj.Hash) {
			return historyRepo(t, "-c", "repack.useDeltaBaseOffset=false")
		}, windowSize},
		{"deltas naming their base by id, entries across reads", func(t *testing.T) (string, []gitobj.Hash) {
			return historyRepo(t, "-c", "repack.useDeltaBaseOffset=false")
		}, 13},
		{"loose objects", loose, windowSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gitDir, oids := tt.setup(t)
			r := objectReader(t, gitDir)
			r.window = tt.window
			types := map[gitobj.ObjectType]int{}
			for round := range 2 {
				for _, h := range oids {
					typ, data, err := r.Read(h)
					if err != nil {
						t.Fatalf("round %d: Read(%s): %v", round, h, err)
					}
					wantType, want := goGitObject(t, gitDir, h)
					if typ != wantType || !bytes.Equal(data, want) {
						t.Fatalf("round %d: Read(%s) = %s of %d bytes; go-git reads %s of %d bytes", round, h, typ, len(data), wantType, len(want))
					}
					types[typ]++
				}
			}
			for _, typ := range []gitobj.ObjectType{gitobj.BlobObject, gitobj.TreeObject, gitobj.CommitObject, gitobj.TagObject} {
				if types[typ] == 0 {
					t.Errorf("no %s read", typ)
				}
			}
			missing := gitobj.ComputeHash(gitobj.BlobObject, []byte("not stored"))
			if _, _, err := r.Read(missing); !errors.Is(err, gitobj.ErrObjectNotFound) {
				t.Fatalf("Read(missing) error = %v; want ErrObjectNotFound", err)
			}
		})
	}
}

// TestObjectReaderLimit: an object over the size limit is an error (the
// caller reads it another way), packed or loose.
func TestObjectReaderLimit(t *testing.T) {
	gitDir, oids := historyRepo(t)
	r := objectReader(t, gitDir)
	r.limit = 64
	big := 0
	for _, h := range oids {
		_, want := goGitObject(t, gitDir, h)
		_, data, err := r.Read(h)
		switch {
		case len(want) > 64 && err == nil:
			t.Fatalf("Read(%s) of %d bytes over a limit of 64: no error", h, len(want))
		case len(want) > 64:
			big++
		case err != nil:
			// A small delta result whose base is over the limit.
			if !errors.Is(err, errTooLarge) {
				t.Fatalf("Read(%s): %v", h, err)
			}
		case !bytes.Equal(data, want):
			t.Fatalf("Read(%s) differs from go-git's read", h)
		}
	}
	if big == 0 {
		t.Fatal("no object over the limit")
	}
	dir, gitDir := newGitRepo(t)
	h := gitobj.NewHash(gitStdin(t, dir, strings.Repeat("x", 100), "hash-object", "-w", "--stdin"))
	r = objectReader(t, gitDir)
	r.limit = 64
	if _, _, err := r.Read(h); !errors.Is(err, errTooLarge) {
		t.Fatalf("Read(loose object over the limit) error = %v; want errTooLarge", err)
	}
}

// zlibBytes compresses b as a loose object file is.
func zlibBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// damagedLoose is a loose object file that is not what its name says.
type damagedLoose struct {
	name string
	file []byte
}

// damagedLooseFiles returns loose object files, for the blob content
// would be stored as, that no reader may take for that blob: damaged zlib
// streams and malformed objects inside good ones, each header as git
// would refuse it.
func damagedLooseFiles(t testing.TB, content string) []damagedLoose {
	t.Helper()
	n := len(content)
	object := func(header string) []byte { return zlibBytes(t, []byte(header+"\x00"+content)) }
	good := object(fmt.Sprintf("blob %d", n))
	return []damagedLoose{
		{"empty file", nil},
		{"not zlib", []byte(fmt.Sprintf("blob %d\x00%s", n, content))},
		{"truncated stream", good[:len(good)/2]},
		{"flipped bit", func() []byte { b := bytes.Clone(good); b[len(b)-6] ^= 1; return b }()},
		{"garbage after the stream", append(bytes.Clone(good), 0)},
		{"header without its end", zlibBytes(t, []byte(fmt.Sprintf("blob %d", n)))},
		{"header too long", object("blob " + strings.Repeat("0", 40) + strconv.Itoa(n))},
		{"no size", object("blob")},
		{"size not a number", object("blob x")},
		{"negative size", object(fmt.Sprintf("blob -%d", n))},
		{"signed size", object(fmt.Sprintf("blob +%d", n))},
		{"size with a leading zero", object(fmt.Sprintf("blob 0%d", n))},
		{"size too small", object(fmt.Sprintf("blob %d", n-1))},
		{"size too large", object(fmt.Sprintf("blob %d", n+1))},
		{"huge size", object("blob 99999999999999")},
		{"unknown type", object(fmt.Sprintf("blub %d", n))},
		{"delta type", object(fmt.Sprintf("ofs-delta %d", n))},
	}
}

// TestObjectReaderDamagedLoose writes loose object files that are not what
// their names say, or not loose objects at all: each is an error other
// than not found.
func TestObjectReaderDamagedLoose(t *testing.T) {
	content := []byte("the content\n")
	h := gitobj.ComputeHash(gitobj.BlobObject, content)
	// Beyond the format: the reader checks the object against its name.
	tests := append(damagedLooseFiles(t, string(content)),
		damagedLoose{"other content", zlibBytes(t, []byte("blob 12\x00the Content\n"))},
		damagedLoose{"other type", zlibBytes(t, []byte("tree 12\x00the content\n"))},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, gitDir := newGitRepo(t)
			hex := h.String()
			path := filepath.Join(gitDir, "objects", hex[:2], hex[2:])
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tt.file, 0o444); err != nil {
				t.Fatal(err)
			}
			r := objectReader(t, gitDir)
			typ, got, err := r.Read(h)
			if err == nil {
				t.Fatalf("read as %s %q", typ, got)
			}
			if errors.Is(err, gitobj.ErrObjectNotFound) {
				t.Fatalf("%v; want an error other than not found", err)
			}
		})
	}
	// The same file with the right content reads.
	_, gitDir := newGitRepo(t)
	hex := h.String()
	path := filepath.Join(gitDir, "objects", hex[:2], hex[2:])
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, zlibBytes(t, []byte("blob 12\x00the content\n")), 0o444); err != nil {
		t.Fatal(err)
	}
	typ, got, err := objectReader(t, gitDir).Read(h)
	if err != nil || typ != gitobj.BlobObject || !bytes.Equal(got, content) {
		t.Fatalf("Read = %s %q, %v; want blob %q", typ, got, err, content)
	}
}

// FuzzParseLoose: whatever a loose object file holds, parseLoose returns
// an error or a type and content whose header and content are exactly
// what the file inflates to.
func FuzzParseLoose(f *testing.F) {
	for _, s := range []string{"blob 3\x00abc", "tree 0\x00", "commit 5\x00tree ", "blob 3\x00abcd", "blob 03\x00abc", "tag 1", ""} {
		f.Add([]byte(s), true)
	}
	f.Add([]byte{0x78, 0x9c, 0x03, 0x00}, false)
	f.Fuzz(func(t *testing.T, b []byte, compress bool) {
		file, inflated := b, []byte(nil)
		if compress {
			file, inflated = zlibBytes(t, b), b
		}
		r := &ObjectReader{limit: 1 << 20}
		typ, data, err := r.parseLoose(file)
		if err != nil {
			return
		}
		head := fmt.Sprintf("%s %d\x00", typ, len(data))
		if inflated != nil && !bytes.Equal(append([]byte(head), data...), inflated) {
			t.Fatalf("parseLoose(%q) = %s %q", inflated, typ, data)
		}
		switch typ {
		case gitobj.BlobObject, gitobj.TreeObject, gitobj.CommitObject, gitobj.TagObject:
		default:
			t.Fatalf("parseLoose(%q): type %s", b, typ)
		}
	})
}

// TestObjectReaderAfterRepack reads objects that a repack moved from the
// pack the reader had open (and deleted) and from loose files into a new
// pack.
func TestObjectReaderAfterRepack(t *testing.T) {
	gitDir, oids := historyRepo(t)
	dir := filepath.Dir(gitDir)
	loose := gitobj.NewHash(strings.TrimSpace(gitStdin(t, dir, "loose, then packed\n", "hash-object", "-w", "--stdin")))
	git(t, dir, "tag", "keep", loose.String())
	r := objectReader(t, gitDir)
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

// TestEntryCacheBounded fills the cache of delta bases past its bound and
// checks that it keeps to it, answers only for the pack and offset an
// object was kept for, and keeps no object over entryCacheObject.
func TestEntryCacheBounded(t *testing.T) {
	var c entryCache
	big := make([]byte, entryCacheObject)
	for i := range 4 * entryCacheBytes / entryCacheObject {
		c.put("a.pack", int64(i)*100, gitobj.BlobObject, big)
		if c.bytes > entryCacheBytes {
			t.Fatalf("after %d puts the cache holds %d bytes, over %d", i+1, c.bytes, entryCacheBytes)
		}
	}
	c.put("a.pack", 7, gitobj.TreeObject, []byte("small"))
	if typ, data, ok := c.get("a.pack", 7); !ok || typ != gitobj.TreeObject || string(data) != "small" {
		t.Fatalf("get = %s %q %v", typ, data, ok)
	}
	if _, _, ok := c.get("b.pack", 7); ok {
		t.Fatal("an object kept for one pack is found in another")
	}
	if _, _, ok := c.get("a.pack", 8); ok {
		t.Fatal("an object is found at another offset")
	}
	c.put("a.pack", 9, gitobj.BlobObject, make([]byte, entryCacheObject+1))
	if _, _, ok := c.get("a.pack", 9); ok {
		t.Fatal("an object over entryCacheObject was kept")
	}
}

// TestObjectReaderDamagedPack reads every object of a pack cut short or
// overwritten in its middle, with reads of a window and of a few bytes:
// each read gives the object's true content or an error, and the objects
// in the damaged part give errors.
func TestObjectReaderDamagedPack(t *testing.T) {
	damages := []struct {
		name   string
		damage func(b []byte) []byte
	}{
		{"cut short", func(b []byte) []byte { return b[:len(b)/2] }},
		{"overwritten", func(b []byte) []byte {
			copy(b[len(b)/3:2*len(b)/3], bytes.Repeat([]byte{0x5a}, len(b)))
			return b
		}},
	}
	for _, d := range damages {
		for _, window := range []int{windowSize, 7} {
			t.Run(fmt.Sprintf("%s, window %d", d.name, window), func(t *testing.T) {
				gitDir, oids := historyRepo(t)
				want := map[gitobj.Hash][]byte{}
				for _, h := range oids {
					_, want[h] = goGitObject(t, gitDir, h)
				}
				packs, err := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.pack"))
				if err != nil || len(packs) != 1 {
					t.Fatalf("packs: %v, %v; want one", packs, err)
				}
				b, err := os.ReadFile(packs[0])
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(packs[0], 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(packs[0], d.damage(b), 0o644); err != nil {
					t.Fatal(err)
				}
				r := objectReader(t, gitDir)
				r.window = window
				failed := 0
				for _, h := range oids {
					_, data, err := r.Read(h)
					switch {
					case err != nil:
						failed++
					case !bytes.Equal(data, want[h]):
						t.Fatalf("Read(%s) from a damaged pack: wrong content, no error", h)
					}
				}
				if failed == 0 {
					t.Fatal("no read from the damaged pack failed")
				}
			})
		}
	}
}

// packEntryBytes encodes a pack entry of type typ: its header (type and
// inflated size), base (an offset-delta's encoded base offset, or
// nothing) and content compressed.
func packEntryBytes(t testing.TB, typ gitobj.ObjectType, base, content []byte) []byte {
	t.Helper()
	n := len(content)
	head := []byte{byte(typ)<<4 | byte(n&15)}
	for n >>= 4; n > 0; n >>= 7 {
		head[len(head)-1] |= 0x80
		head = append(head, byte(n&0x7f))
	}
	return append(append(head, base...), zlibBytes(t, content)...)
}

// FuzzEntryWindows decodes the entry at an offset of arbitrary pack data
// with windows of a few bytes and from a view of the whole pack: the two
// reads agree, error or content.
func FuzzEntryWindows(f *testing.F) {
	base := bytes.Repeat([]byte("a base of some length\n"), 20)
	blob := packEntryBytes(f, gitobj.BlobObject, nil, base)
	// A delta on the blob: copy its first 40 bytes, insert "new".
	delta := append(appendVarint(nil, len(base)), append(appendVarint(nil, 43), 0x90, 40, 3, 'n', 'e', 'w')...)
	pack := append(append([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x02"), blob...), packEntryBytes(f, gitobj.OFSDeltaObject, []byte{byte(len(blob))}, delta)...)
	f.Add(pack, uint16(12), uint8(3))
	f.Add(pack, uint16(12+len(blob)), uint8(5))
	f.Add(pack, uint16(12+len(blob)), uint8(200))
	f.Add(pack[:len(pack)-6], uint16(12+len(blob)), uint8(1))
	f.Fuzz(func(t *testing.T, pack []byte, off uint16, window uint8) {
		if len(pack) == 0 {
			return
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "p.pack")
		if err := os.WriteFile(path, pack, 0o644); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		pf := &packFile{f: file}
		at := int64(off) % int64(len(pack))
		// whole: the reader's view holds all the pack, as if read at once.
		read := func(window int, whole bool) (gitobj.ObjectType, []byte, error) {
			r := newObjectReader(dir, &packIndexes{dir: dir}, 1<<16)
			r.window = window
			if whole {
				r.view = packView{pack: pf, data: bytes.Clone(pack), end: true}
			}
			return r.entry(pf, path, at, filepath.Join(dir, "p.idx")) // no index: a delta by id fails
		}
		wantType, want, wantErr := read(windowSize, true)
		gotType, got, err := read(int(window)+1, false)
		if (err == nil) != (wantErr == nil) || gotType != wantType || !bytes.Equal(got, want) {
			t.Fatalf("entry at %d, window %d: %s of %d bytes, error %v; one window: %s of %d bytes, error %v",
				at, window+1, gotType, len(got), err, wantType, len(want), wantErr)
		}
	})
}

// appendVarint appends n as a delta's sizes are encoded: seven bits a
// byte, least significant first.
func appendVarint(b []byte, n int) []byte {
	for ; n >= 0x80; n >>= 7 {
		b = append(b, byte(n&0x7f|0x80))
	}
	return append(b, byte(n))
}
