package objects

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// ObjectReader reads whole objects of one object database in process:
// packed ones through the pack indexes and entries (packidx.go,
// packread.go), loose ones from their files. It is for readers of many
// small objects, such as a cold thread listing, that would otherwise ask a
// `git cat-file` process for each: reading in the process saves writing
// every object through a pipe and parsing it back. Like cat-file, it does
// not hash what it read again (zlib's checksum still catches damaged
// data): Store's reads, which do, are for objects the caller goes on to
// trust as named.
//
// It handles what git writes by default; anything else (alternates, an
// index of version 1, an object over the in-memory limit, a damaged entry)
// is an error, and the caller reads that object another way. It is safe
// for concurrent use.
//
// The packs are mapped into memory, and the pages read count towards the
// process's resident memory until the system reclaims them: reading most
// of a large pack would cost as much memory as the pack. The reader keeps
// count of the windows of the packs it read from (the system maps about
// 64 KiB around each page it faults in) and lets go of the mapped pages
// when they pass maxWindows. The pages stay in the page cache: a read of
// them after that costs a minor fault. Like git, it keeps the objects that
// deltas were applied to (up to 2 MiB), so that reading the objects of a
// deltified pack does not inflate their chains again for each.
type ObjectReader struct {
	objects string // <git dir>/objects
	packs   *packIndexes
	bases   deltaBases

	mu         sync.Mutex
	windows    map[packWindow]struct{} // read from since the pages were let go
	maxWindows int                     // maxWindows; tests lower it
}

// packWindow is a window of pack data, of windowSize bytes.
type packWindow struct {
	pack *packFile
	at   int64 // offset / windowSize
}

const (
	windowSize = 64 << 10
	// maxWindows bounds the pack data kept mapped in: 1 MiB.
	maxWindows = 16
)

// NewObjectReader returns a reader of the object database in objectsDir
// (<git dir>/objects).
func NewObjectReader(objectsDir string) *ObjectReader {
	return &ObjectReader{objects: objectsDir, windows: map[packWindow]struct{}{}, maxWindows: maxWindows, packs: &packIndexes{dir: filepath.Join(objectsDir, "pack")}}
}

// Read returns the type and content of h. The content is the caller's.
// A missing object returns an error matching gitobj.ErrObjectNotFound
// (after the pack directory is listed again, in case a repack moved it);
// any other error means the object could not be read here.
func (r *ObjectReader) Read(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
	typ, data, err := r.packed(h)
	if errors.Is(err, gitobj.ErrObjectNotFound) {
		typ, data, err = r.loose(h)
		if errors.Is(err, gitobj.ErrObjectNotFound) {
			// A repack may have packed it since the packs were listed.
			r.packs.reset()
			typ, data, err = r.packed(h)
		}
	}
	if err != nil {
		return 0, nil, err
	}
	return typ, data, nil
}

// packed reads h from the pack whose index lists it.
func (r *ObjectReader) packed(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
	idx, off, found, err := r.packs.locate(h)
	if err != nil {
		return 0, nil, err
	}
	if !found {
		return 0, nil, gitobj.ErrObjectNotFound
	}
	pack := idx[:len(idx)-len(".idx")] + ".pack"
	r.packs.mu.Lock()
	f, err := r.packs.open(pack)
	r.packs.mu.Unlock()
	if err != nil {
		return 0, nil, err
	}
	typ, data, err := readPackEntry(f, off, defaultPackedReadLimit, func(base gitobj.Hash) (int64, bool, error) {
		return r.packs.offsetIn(idx, base)
	}, &r.bases)
	if err != nil {
		return 0, nil, fmt.Errorf("read %s at offset %d of %s: %w", h, off, pack, err)
	}
	r.touched(f, off)
	return typ, data, nil
}

// touched notes a read at off in f, and lets go of the mapped pages of
// every pack once they may pass maxWindows.
func (r *ObjectReader) touched(f *packFile, off int64) {
	if f.mapped == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.windows[packWindow{f, off / windowSize}] = struct{}{}
	if len(r.windows) < r.maxWindows {
		return
	}
	dropped := map[*packFile]bool{}
	for w := range r.windows {
		if !dropped[w.pack] {
			dropped[w.pack] = true
			dropPages(w.pack.mapped)
		}
	}
	clear(r.windows)
}

// loose reads h from its loose object file: a zlib stream of
// "<type> <size>\x00<content>".
func (r *ObjectReader) loose(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
	hex := h.String()
	raw, err := os.ReadFile(filepath.Join(r.objects, hex[:2], hex[2:]))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil, gitobj.ErrObjectNotFound
		}
		return 0, nil, fmt.Errorf("read loose object %s: %w", h, err)
	}
	typ, data, err := parseLoose(raw, defaultPackedReadLimit)
	if err != nil {
		return 0, nil, fmt.Errorf("read loose object %s: %w", h, err)
	}
	return typ, data, nil
}

// errLooseObject marks a loose object file this reader could not decode.
var errLooseObject = errors.New("malformed loose object")

// parseLoose inflates a loose object file and splits its header off.
func parseLoose(raw []byte, limit int64) (gitobj.ObjectType, []byte, error) {
	// The header is at most "commit " and 20 digits and a NUL: inflate
	// that much first to learn the size, then the rest.
	head, err := inflatePrefix(raw, 32)
	if err != nil {
		return 0, nil, err
	}
	sp := bytes.IndexByte(head, ' ')
	nul := bytes.IndexByte(head, 0)
	if sp <= 0 || nul < sp+2 {
		return 0, nil, errLooseObject
	}
	typ, err := gitobj.ParseObjectType(string(head[:sp]))
	if err != nil || !typ.Valid() || typ == gitobj.OFSDeltaObject || typ == gitobj.REFDeltaObject {
		return 0, nil, errLooseObject
	}
	digits := head[sp+1 : nul]
	if len(digits) > 1 && digits[0] == '0' {
		return 0, nil, errLooseObject
	}
	size, err := strconv.ParseInt(string(digits), 10, 64)
	if err != nil || size < 0 {
		return 0, nil, errLooseObject
	}
	if size > limit {
		return 0, nil, errTooLarge
	}
	all, err := inflate(bytes.NewReader(raw), int64(nul)+1+size)
	if err != nil {
		return 0, nil, err
	}
	return typ, all[nul+1:], nil
}
