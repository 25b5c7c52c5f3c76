package objects

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
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
	dir string // <git dir>/objects/pack

	mu      sync.Mutex
	scanned bool
	idx     []string                // .idx paths, as last listed
	fanout  map[string]*[256]uint32 // by path, read on first use
}

// idxMagic starts a version 2 (or later) pack index.
var idxMagic = []byte{0xff, 't', 'O', 'c'}

// errIdxFormat marks an index this reader does not handle (version 1 or
// damaged): the caller asks go-git instead.
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
func (p *packIndexes) has(h plumbing.Hash) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.scanned {
		entries, err := os.ReadDir(p.dir)
		if err != nil && !os.IsNotExist(err) {
			return false, err
		}
		p.idx = p.idx[:0]
		for _, e := range entries {
			if name := e.Name(); strings.HasPrefix(name, "pack-") && strings.HasSuffix(name, ".idx") {
				p.idx = append(p.idx, filepath.Join(p.dir, name))
			}
		}
		p.scanned = true
	}
	var unknown error
	for _, path := range p.idx {
		ok, err := p.lookup(path, h)
		switch {
		case os.IsNotExist(err):
			// Deleted by a repack: its objects live in a newer pack.
		case err != nil:
			unknown = errIdxFormat
		case ok:
			return true, nil
		}
	}
	return false, unknown
}

// lookup binary-searches one version 2 index for h; p.mu is held.
func (p *packIndexes) lookup(path string, h plumbing.Hash) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fan := p.fanout[path]
	if fan == nil {
		var head [8 + 256*4]byte
		if _, err := io.ReadFull(f, head[:]); err != nil {
			return false, errIdxFormat
		}
		if !bytes.Equal(head[:4], idxMagic) || binary.BigEndian.Uint32(head[4:8]) != 2 {
			return false, errIdxFormat
		}
		fan = new([256]uint32)
		for i := range fan {
			fan[i] = binary.BigEndian.Uint32(head[8+4*i:])
			if i > 0 && fan[i] < fan[i-1] {
				return false, errIdxFormat
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
		return false, nil
	}
	names := make([]byte, int(hi-lo)*20)
	if _, err := f.ReadAt(names, int64(8+256*4)+int64(lo)*20); err != nil {
		return false, errIdxFormat
	}
	i, j := 0, int(hi-lo)
	for i < j {
		m := int(uint(i+j) >> 1)
		switch c := bytes.Compare(names[m*20:m*20+20], h[:]); {
		case c == 0:
			return true, nil
		case c < 0:
			i = m + 1
		default:
			j = m
		}
	}
	return false, nil
}
