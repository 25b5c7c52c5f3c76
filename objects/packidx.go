package objects

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/mmapfile"
)

// packIndexes answers "is this object in a pack?" by reading only the part
// of each pack's .idx file that can hold the name: the fan-out table, then
// the run of names sharing the first byte. go-git instead decodes every
// .idx in full (and checksums it) on its first pack lookup, which costs
// O(objects) for a write that only needs to know whether to skip an
// object. Pack and index files are never changed once named, so a fan-out
// table read once stays true; git gc deleting a pack only makes a lookup
// in it miss.
type packIndexes struct {
	dir   string // <git dir>/objects/pack
	limit int64  // largest object read whole by object; 0: the default

	mu      sync.Mutex
	scanned bool
	idx     []string                // .idx paths, as last listed
	fanout  map[string]*[256]uint32 // by path, read on first use
	// files keeps the .idx and .pack files open once used, and mapped
	// into memory where the system allows, so reading thousands of objects
	// (a sync validating fetched threads) neither opens two files nor makes
	// a pread per object. A pack git deleted stays readable through its
	// open file or mapping; unreachable stores' files are closed and
	// unmapped by the runtime.
	files map[string]*packFile
}

// packFile is an open pack or index file. Git never rewrites either in
// place once it is named (a repack writes new files and deletes the old),
// so a mapping of the whole file stays valid, as it does for git, which
// maps them too.
type packFile struct {
	f      *os.File
	mapped []byte // the whole file, or nil: read with pread
}

// ReadAt reads from the mapping, or from the file.
func (pf *packFile) ReadAt(b []byte, off int64) (int, error) {
	if pf.mapped == nil {
		return pf.f.ReadAt(b, off)
	}
	if off < 0 {
		return 0, errors.New("packFile.ReadAt: negative offset")
	}
	if off >= int64(len(pf.mapped)) {
		return 0, io.EOF
	}
	n := copy(b, pf.mapped[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// bytesAt returns the n bytes at off: in place in a mapped file (no copy,
// no allocation), else read into a new slice.
func (pf *packFile) bytesAt(off, n int64) ([]byte, error) {
	if pf.mapped != nil {
		if off < 0 || off > int64(len(pf.mapped))-n {
			return nil, io.ErrUnexpectedEOF
		}
		return pf.mapped[off : off+n : off+n], nil
	}
	b := make([]byte, n)
	if _, err := pf.f.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// open returns the file at path, opened (and mapped) once; p.mu is held.
func (p *packIndexes) open(path string) (*packFile, error) {
	if pf := p.files[path]; pf != nil {
		return pf, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	pf := &packFile{f: f}
	if fi, err := f.Stat(); err == nil {
		pf.mapped = mmapfile.Map(f, fi.Size())
	}
	if pf.mapped != nil {
		runtime.AddCleanup(pf, mmapfile.Unmap, pf.mapped)
	}
	if p.files == nil {
		p.files = map[string]*packFile{}
	}
	p.files[path] = pf
	return pf, nil
}

// idxMagic starts a version 2 (or later) pack index.
var idxMagic = []byte{0xff, 't', 'O', 'c'}

// errIdxFormat marks an index this reader does not handle (version 1 or
// damaged): the caller asks git cat-file instead.
var errIdxFormat = errors.New("unsupported pack index")

// reset forgets the pack list, so the next lookup lists the directory again.
func (p *packIndexes) reset() {
	p.mu.Lock()
	p.scanned = false
	p.idx = nil
	p.mu.Unlock()
}

// has reports whether a pack index lists h. errIdxFormat means some index
// could not be read this way (the answer is then unknown).
func (p *packIndexes) has(h gitobj.Hash) (bool, error) {
	_, _, found, err := p.locate(h)
	return found, err
}

// locate finds h in the pack indexes: the .idx path that lists it and the
// offset of its entry in the matching .pack. errIdxFormat means some index
// could not be read this way (the answer is then unknown).
func (p *packIndexes) locate(h gitobj.Hash) (idx string, offset int64, found bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.scan(); err != nil {
		return "", 0, false, err
	}
	var unknown error
	for _, path := range p.idx {
		off, ok, err := p.lookup(path, h)
		switch {
		case os.IsNotExist(err):
			// Deleted by a repack: its objects live in a newer pack.
		case err != nil:
			unknown = errIdxFormat
		case ok:
			return path, off, true, nil
		}
	}
	return "", 0, false, unknown
}

// offsetIn finds h in the one index idx, for a delta whose base is named
// by its id: its base lives in the same pack.
func (p *packIndexes) offsetIn(idx string, h gitobj.Hash) (int64, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lookup(idx, h)
}

// scan lists the pack directory unless it was listed since the last
// reset; p.mu is held.
func (p *packIndexes) scan() error {
	if p.scanned {
		return nil
	}
	entries, err := os.ReadDir(p.dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	p.idx = p.idx[:0]
	for _, e := range entries {
		if name := e.Name(); strings.HasPrefix(name, "pack-") && strings.HasSuffix(name, ".idx") {
			p.idx = append(p.idx, filepath.Join(p.dir, name))
		}
	}
	p.scanned = true
	return nil
}

// lookup binary-searches one version 2 index for h and reads the offset
// of its pack entry; p.mu is held.
func (p *packIndexes) lookup(path string, h gitobj.Hash) (int64, bool, error) {
	f, err := p.open(path)
	if err != nil {
		return 0, false, err
	}
	fan := p.fanout[path]
	if fan == nil {
		var head [idxHeader]byte
		if _, err := f.ReadAt(head[:], 0); err != nil {
			return 0, false, errIdxFormat
		}
		if !bytes.Equal(head[:4], idxMagic) || binary.BigEndian.Uint32(head[4:8]) != 2 {
			return 0, false, errIdxFormat
		}
		fan = new([256]uint32)
		for i := range fan {
			fan[i] = binary.BigEndian.Uint32(head[8+4*i:])
			if i > 0 && fan[i] < fan[i-1] {
				return 0, false, errIdxFormat
			}
		}
		if p.fanout == nil {
			p.fanout = map[string]*[256]uint32{}
		}
		p.fanout[path] = fan
	}
	var lo uint32
	if h[0] > 0 {
		lo = fan[h[0]-1]
	}
	hi := fan[h[0]]
	if lo == hi {
		return 0, false, nil
	}
	// The names sharing h's first byte: in place in a mapped index, else
	// read.
	start, end := idxHeader+int64(lo)*20, idxHeader+int64(hi)*20
	names, err := f.bytesAt(start, end-start)
	if err != nil {
		return 0, false, errIdxFormat
	}
	found := func(m int) (int64, bool, error) {
		off, err := idxOffset(f, int64(fan[255]), int64(lo)+int64(m))
		return off, err == nil, err
	}
	key := binary.BigEndian.Uint64(h[:8])
	cmp := func(m int) int { return compareName(names[m*20:m*20+20], key, &h) }
	i, j := 0, int(hi-lo)
	// Object ids are spread evenly: h sits near the place its next bytes
	// point at. Searching a window around it first touches a few pages of
	// a large index rather than one per step of a search of the whole run.
	// The window's ends are checked, so an index of unevenly spread names
	// is searched whole, as before.
	if n := j; n > 64 {
		guess := int(uint64(binary.BigEndian.Uint32(h[1:5])) * uint64(n) >> 32)
		w := 4*int(math.Sqrt(float64(n))) + 8
		if a := guess - w; a > 0 {
			switch c := cmp(a); {
			case c == 0:
				return found(a)
			case c < 0:
				i = a + 1
			default:
				j = a
			}
		}
		if b := guess + w; b < n && i < b && b < j {
			switch c := cmp(b); {
			case c == 0:
				return found(b)
			case c < 0:
				i = b + 1
			default:
				j = b
			}
		}
	}
	for i < j {
		m := int(uint(i+j) >> 1)
		switch c := cmp(m); {
		case c == 0:
			return found(m)
		case c < 0:
			i = m + 1
		default:
			j = m
		}
	}
	return 0, false, nil
}

// compareName compares a 20-byte name of an index with h, whose first
// eight bytes read as a big-endian number are key: as bytes.Compare
// would, but deciding most comparisons on one number, since names that
// share their first eight bytes are rare.
func compareName(name []byte, key uint64, h *gitobj.Hash) int {
	if k := binary.BigEndian.Uint64(name[:8]); k != key {
		if k < key {
			return -1
		}
		return 1
	}
	return bytes.Compare(name[8:20], h[8:])
}

// idxHeader is the size of a version 2 index's magic, version and fan-out
// table; the sorted names follow it.
const idxHeader = 8 + 256*4

// idxOffset reads the pack offset of the pos'th of n names from a version
// 2 index: after the names and their CRCs comes a table of 32-bit offsets;
// one with its high bit set indexes a table of 64-bit offsets that follows
// it (packs over 2 GiB).
func idxOffset(f *packFile, n, pos int64) (int64, error) {
	small := idxHeader + n*24 // past the names (20 bytes) and CRCs (4 bytes)
	b, err := f.bytesAt(small+pos*4, 4)
	if err != nil {
		return 0, errIdxFormat
	}
	off := binary.BigEndian.Uint32(b)
	if off&0x80000000 == 0 {
		return int64(off), nil
	}
	large := small + n*4
	if b, err = f.bytesAt(large+int64(off&0x7fffffff)*8, 8); err != nil {
		return 0, errIdxFormat
	}
	o := binary.BigEndian.Uint64(b)
	if o > math.MaxInt64 {
		return 0, errIdxFormat
	}
	return int64(o), nil
}
