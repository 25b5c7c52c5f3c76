package objects

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// Reading a packed object without decoding the pack's whole index.
//
// go-git decodes a pack's whole .idx (and checksums it) the first time it
// reads any object from that pack: O(objects in the pack) for every
// process that reads one packed object. packIndexes.locate finds the entry
// offset with a binary search of the .idx instead; object then inflates
// the entry at that offset, follows its delta chain by offset (or, for a
// delta naming its base by id, through the same index), applies the deltas
// and checks that the result hashes to the id asked for, as git does.
// Anything this reader does not handle (an index of version 1, an object
// over the size limit, a damaged entry) returns an error, and the caller
// reads the object through git cat-file instead.

// defaultPackedReadLimit is the largest object read whole into memory
// here. Larger ones are read through git cat-file.
const defaultPackedReadLimit = 32 << 20

// maxDeltaChain bounds a delta chain; git's own default depth is 50 and
// its maximum 4095.
const maxDeltaChain = 10000

// errTooLarge marks an object over the read limit.
var errTooLarge = errors.New("packed object over the in-memory read limit")

// errPackEntry marks a pack entry this reader could not decode.
var errPackEntry = errors.New("malformed pack entry")

// object reads h from the pack whose index lists it. A miss returns
// gitobj.ErrObjectNotFound.
func (p *packIndexes) object(h gitobj.Hash) (*gitobj.MemoryObject, error) {
	idx, off, found, err := p.locate(h)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, gitobj.ErrObjectNotFound
	}
	pack := strings.TrimSuffix(idx, ".idx") + ".pack"
	p.mu.Lock()
	f, err := p.open(pack)
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	limit := p.limit
	if limit <= 0 {
		limit = defaultPackedReadLimit
	}
	typ, data, err := readPackEntry(f, off, limit, func(base gitobj.Hash) (int64, bool, error) {
		return p.offsetIn(idx, base)
	})
	if err != nil {
		return nil, fmt.Errorf("read %s at offset %d of %s: %w", h, off, pack, err)
	}
	obj := &gitobj.MemoryObject{}
	obj.SetType(typ)
	if _, err := obj.Write(data); err != nil {
		return nil, err
	}
	if got := obj.Hash(); got != h {
		return nil, fmt.Errorf("read %s at offset %d of %s: content hashes to %s: %w", h, off, pack, got, errPackEntry)
	}
	return obj, nil
}

// readPackEntry decodes the object whose entry starts at off in pack f:
// its type and content. Deltas are resolved through their bases, found by
// offset, or for a delta that names its base by id, through refOffset.
func readPackEntry(f io.ReaderAt, off, limit int64, refOffset func(gitobj.Hash) (int64, bool, error)) (gitobj.ObjectType, []byte, error) {
	var deltas [][]byte // outermost first
	// patch applies deltas to base, the object at off.
	patch := func(typ gitobj.ObjectType, data []byte) (gitobj.ObjectType, []byte, error) {
		for i := len(deltas) - 1; i >= 0; i-- {
			if target, err := deltaTargetSize(deltas[i]); err != nil || target > limit {
				return 0, nil, errors.Join(errTooLarge, err)
			}
			var err error
			if data, err = applyDelta(data, deltas[i]); err != nil {
				return 0, nil, fmt.Errorf("apply delta: %w", err)
			}
		}
		return typ, data, nil
	}
	// A mapped pack is read in place; another through a buffer.
	var (
		br     entryReader
		mapped *bytes.Reader
		buf    *bufio.Reader
	)
	if pf, ok := f.(*packFile); ok && pf.mapped != nil {
		mapped = bytes.NewReader(pf.mapped)
		br = mapped
	} else {
		buf = bufio.NewReader(nil)
		br = buf
	}
	for range maxDeltaChain {
		if mapped != nil {
			if _, err := mapped.Seek(off, io.SeekStart); err != nil {
				return 0, nil, errPackEntry
			}
		} else {
			buf.Reset(io.NewSectionReader(f, off, math.MaxInt64-off))
		}
		typ, size, err := entryHeader(br)
		if err != nil {
			return 0, nil, err
		}
		switch typ {
		case gitobj.CommitObject, gitobj.TreeObject, gitobj.BlobObject, gitobj.TagObject:
			if size > limit {
				return 0, nil, errTooLarge
			}
			data, err := inflate(br, size)
			if err != nil {
				return 0, nil, err
			}
			return patch(typ, data)
		case gitobj.OFSDeltaObject, gitobj.REFDeltaObject:
			// The base's place comes before the delta data: an offset back
			// from this entry, or an object id in the same pack.
			next := off
			if typ == gitobj.OFSDeltaObject {
				rel, err := deltaBaseOffset(br)
				if err != nil {
					return 0, nil, err
				}
				if rel <= 0 || rel > off {
					return 0, nil, errPackEntry
				}
				next = off - rel
			} else {
				var base gitobj.Hash
				if _, err := io.ReadFull(br, base[:]); err != nil {
					return 0, nil, errPackEntry
				}
				baseOff, ok, err := refOffset(base)
				if err != nil {
					return 0, nil, err
				}
				if !ok {
					return 0, nil, fmt.Errorf("delta base %s not in the same pack: %w", base, errPackEntry)
				}
				next = baseOff
			}
			if size > limit {
				return 0, nil, errTooLarge
			}
			delta, err := inflate(br, size)
			if err != nil {
				return 0, nil, err
			}
			deltas = append(deltas, delta)
			off = next
		default:
			return 0, nil, errPackEntry
		}
	}
	return 0, nil, fmt.Errorf("delta chain longer than %d: %w", maxDeltaChain, errPackEntry)
}

// entryReader reads a pack entry: its header byte by byte, its data through
// zlib, which reads a byte reader without buffering it again.
type entryReader interface {
	io.Reader
	io.ByteReader
}

// entryHeader reads a pack entry's type and (inflated) size: the type in
// bits 4-6 of the first byte, the size in its low four bits and seven bits
// of each following byte while the high bit is set.
func entryHeader(br entryReader) (gitobj.ObjectType, int64, error) {
	c, err := br.ReadByte()
	if err != nil {
		return 0, 0, errPackEntry
	}
	typ := gitobj.ObjectType((c >> 4) & 7)
	size := int64(c & 0x0f)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if shift > 56 {
			return 0, 0, errPackEntry
		}
		if c, err = br.ReadByte(); err != nil {
			return 0, 0, errPackEntry
		}
		size |= int64(c&0x7f) << shift
	}
	return typ, size, nil
}

// deltaBaseOffset reads the distance back to an offset delta's base: big
// endian groups of seven bits, each continuation adding one (git's
// encoding, which has no redundant forms).
func deltaBaseOffset(br entryReader) (int64, error) {
	c, err := br.ReadByte()
	if err != nil {
		return 0, errPackEntry
	}
	rel := int64(c & 0x7f)
	for c&0x80 != 0 {
		if rel > math.MaxInt64>>7-1 {
			return 0, errPackEntry
		}
		if c, err = br.ReadByte(); err != nil {
			return 0, errPackEntry
		}
		rel = (rel+1)<<7 | int64(c&0x7f)
	}
	return rel, nil
}

// inflate reads one zlib stream of size bytes, to its end, so that its
// checksum is verified.
func inflate(r io.Reader, size int64) ([]byte, error) {
	zr, err := zlibReader(r)
	if err != nil {
		return nil, err
	}
	defer func() {
		zr.Close()
		zlibReaders.Put(zr)
	}()
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	var extra [1]byte
	if n, err := zr.Read(extra[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errPackEntry
		}
		return nil, fmt.Errorf("inflate: longer than its header says: %w", err)
	}
	return data, nil
}

// zlibReader returns a zlib reader of r, from zlibReaders if it has one;
// put it back there when done.
func zlibReader(r io.Reader) (io.ReadCloser, error) {
	if pooled, ok := zlibReaders.Get().(io.ReadCloser); ok {
		if err := pooled.(zlib.Resetter).Reset(r, nil); err != nil {
			return nil, fmt.Errorf("inflate: %w", err)
		}
		return pooled, nil
	}
	zr, err := zlib.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	return zr, nil
}

// zlibReaders keeps zlib readers between inflates: a new one allocates a
// 32 KiB window, which dominated reading thousands of small objects.
var zlibReaders sync.Pool

// deltaTargetSize reads the size of a delta's result: the second of the
// two little-endian base-128 numbers that start it.
func deltaTargetSize(delta []byte) (int64, error) {
	var sizes [2]int64
	i := 0
	for n := range sizes {
		for shift := 0; ; shift += 7 {
			if i >= len(delta) || shift > 56 {
				return 0, errPackEntry
			}
			c := delta[i]
			i++
			sizes[n] |= int64(c&0x7f) << shift
			if c&0x80 == 0 {
				break
			}
		}
	}
	return sizes[1], nil
}
