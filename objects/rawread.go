package objects

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// RawReader reads whole objects straight from a repository's object
// directory, for walks that read thousands of small objects in a row (a
// cold chain walk reads about five per thread commit). A packed object is
// found by a binary search of its pack's index (packidx.go) and inflated
// from the mapped pack, its delta chain followed through a small cache of
// recently read entries; a loose object is inflated from its file. Every
// object is checked against its name, as git checks it.
//
// It answers gitobj.ErrObjectNotFound for an object it cannot find
// (an alternate object directory, a pack written after it looked) and
// another error for one it does not handle (a version 1 index, an object
// over its size limit, a damaged entry): callers then read the object
// another way, through the object database or git itself.
//
// A RawReader is not safe for concurrent use; the Store's readers share
// only the pack indexes, which are.
type RawReader struct {
	objects string // <git dir>/objects
	packs   *packIndexes
	limit   int64
	fr      io.ReadCloser // reused between inflates: a new one costs a 32 KiB window
	adler   hash.Hash32   // for loose objects, whose header is checksummed too
	br      bytes.Reader
	fbr     *bufio.Reader // for packs read with pread
	bases   entryCache
	sha     hash.Hash // reused between objects
	head    []byte    // the header hashed before an object's content
	tmp     [4]byte   // read into without an allocation each

	// The pack of the last object read: a walk reads from one pack
	// mostly.
	lastIdx  string
	lastPack string
	lastFile *packFile

	// scratch holds the content of the last object ReadScratch inflated
	// whole; toScratch is set during that read.
	scratch   []byte
	toScratch bool
}

// RawReader returns a reader of the store's object directory, or false
// when the store is not on a directory this reader can read (a memory
// storage in tests).
func (s *Store) RawReader() (*RawReader, bool) {
	db := s.st
	if db == nil || db.objects == "" || db.packs == nil {
		return nil, false
	}
	limit := db.packs.limit
	if limit <= 0 {
		limit = defaultPackedReadLimit
	}
	return &RawReader{objects: db.objects, packs: db.packs, limit: limit}, true
}

// Read returns the type and content of object h. The content belongs to
// the caller but may be shared with later reads of the same object: it
// must not be modified.
func (r *RawReader) Read(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
	return r.read(h)
}

// ReadScratch is Read for an object the caller only parses (a commit, a
// tree): its content may be in a buffer the reader reuses, good only
// until its next read.
func (r *RawReader) ReadScratch(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
	r.toScratch = true
	defer func() { r.toScratch = false }()
	return r.read(h)
}

func (r *RawReader) read(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
	for attempt := 0; ; attempt++ {
		typ, data, err := r.packed(h)
		if !errors.Is(err, gitobj.ErrObjectNotFound) {
			return typ, data, err
		}
		typ, data, err = r.loose(h)
		if !errors.Is(err, gitobj.ErrObjectNotFound) || attempt > 0 {
			return typ, data, err
		}
		// A repack may have moved it into a pack not listed yet.
		r.packs.reset()
	}
}

// packed reads h from the pack whose index lists it.
func (r *RawReader) packed(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
	idx, off, found, err := r.packs.locate(h)
	if err != nil {
		return 0, nil, err
	}
	if !found {
		return 0, nil, gitobj.ErrObjectNotFound
	}
	if idx != r.lastIdx {
		pack := strings.TrimSuffix(idx, ".idx") + ".pack"
		r.packs.mu.Lock()
		f, err := r.packs.open(pack)
		r.packs.mu.Unlock()
		if err != nil {
			if os.IsNotExist(err) {
				return 0, nil, gitobj.ErrObjectNotFound // deleted by a repack
			}
			return 0, nil, err
		}
		r.lastIdx, r.lastPack, r.lastFile = idx, pack, f
	}
	pack := r.lastPack
	typ, data, err := r.entry(r.lastFile, pack, off, idx)
	if err != nil {
		return 0, nil, fmt.Errorf("read %s at offset %d of %s: %w", h, off, pack, err)
	}
	if got := r.hashObject(typ, data); got != h {
		return 0, nil, fmt.Errorf("read %s at offset %d of %s: content hashes to %s: %w", h, off, pack, got, errPackEntry)
	}
	return typ, data, nil
}

// entry decodes the pack entry at off, as readPackEntry does, reading
// through the mapping when there is one and keeping what it resolves
// through deltas in r.bases, so that a chain of deltas sharing bases (a
// gc'd history of the same tree) inflates each base once. An object read
// without a delta is not kept: most are, and are read once.
func (r *RawReader) entry(f *packFile, pack string, off int64, idx string) (gitobj.ObjectType, []byte, error) {
	type step struct {
		off   int64
		delta []byte
	}
	var steps []step // outermost first
	var (
		typ  gitobj.ObjectType
		data []byte
	)
	for n := 0; ; n++ {
		if n == maxDeltaChain {
			return 0, nil, fmt.Errorf("delta chain longer than %d: %w", maxDeltaChain, errPackEntry)
		}
		if t, d, ok := r.bases.get(pack, off); ok {
			typ, data = t, d
			break
		}
		src, err := r.source(f, off)
		if err != nil {
			return 0, nil, err
		}
		t, size, err := entryHeader(src)
		if err != nil {
			return 0, nil, err
		}
		if size > r.limit {
			return 0, nil, errTooLarge
		}
		if t == gitobj.CommitObject || t == gitobj.TreeObject || t == gitobj.BlobObject || t == gitobj.TagObject {
			if data, err = r.inflate(src, size, len(steps) == 0); err != nil {
				return 0, nil, err
			}
			typ = t
			if len(steps) > 0 {
				r.bases.put(pack, off, typ, data)
			}
			break
		}
		next := off
		switch t {
		case gitobj.OFSDeltaObject:
			rel, err := deltaBaseOffset(src)
			if err != nil {
				return 0, nil, err
			}
			if rel <= 0 || rel > off {
				return 0, nil, errPackEntry
			}
			next = off - rel
		case gitobj.REFDeltaObject:
			var base gitobj.Hash
			if _, err := io.ReadFull(src, base[:]); err != nil {
				return 0, nil, errPackEntry
			}
			baseOff, ok, err := r.packs.offsetIn(idx, base)
			if err != nil {
				return 0, nil, err
			}
			if !ok {
				return 0, nil, fmt.Errorf("delta base %s not in the same pack: %w", base, errPackEntry)
			}
			next = baseOff
		default:
			return 0, nil, errPackEntry
		}
		delta, err := r.inflate(src, size, false)
		if err != nil {
			return 0, nil, err
		}
		steps = append(steps, step{off, delta})
		off = next
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if target, err := deltaTargetSize(steps[i].delta); err != nil || target > r.limit {
			return 0, nil, errors.Join(errTooLarge, err)
		}
		var err error
		if data, err = applyDelta(data, steps[i].delta); err != nil {
			return 0, nil, fmt.Errorf("apply delta: %w", err)
		}
		r.bases.put(pack, steps[i].off, typ, data)
	}
	return typ, data, nil
}

// byteSource is what entry headers and zlib streams are read from: a
// bytes.Reader over a mapped pack, or a bufio.Reader over the file.
type byteSource interface {
	io.Reader
	io.ByteReader
}

// source returns a reader of pack f from off on.
func (r *RawReader) source(f *packFile, off int64) (byteSource, error) {
	if f.mapped != nil {
		if off < 0 || off >= int64(len(f.mapped)) {
			return nil, errPackEntry
		}
		r.br.Reset(f.mapped[off:])
		return &r.br, nil
	}
	if r.fbr == nil {
		r.fbr = bufio.NewReader(nil)
	}
	r.fbr.Reset(io.NewSectionReader(f, off, 1<<62-off))
	return r.fbr, nil
}

// inflate reads one zlib stream of exactly size bytes from src, to its
// end, so that its checksum is verified. whole says the stream is the
// object asked for, which ReadScratch inflates into its buffer.
func (r *RawReader) inflate(src byteSource, size int64, whole bool) ([]byte, error) {
	if err := r.startStream(src); err != nil {
		return nil, err
	}
	data := r.buffer(size, whole)
	if _, err := io.ReadFull(r.fr, data); err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	if err := r.endStream(src, adler32.Checksum(data)); err != nil {
		return nil, err
	}
	return data, nil
}

// startStream reads the header of a zlib stream (RFC 1950) from src and
// sets r.fr to inflate what follows. The stream is read without the zlib
// package, whose reader allocates a checksum per stream: endStream checks
// the checksum of what was inflated.
func (r *RawReader) startStream(src byteSource) error {
	cmf, err1 := src.ReadByte()
	flg, err2 := src.ReadByte()
	switch {
	case err1 != nil || err2 != nil:
		return fmt.Errorf("inflate: %w", io.ErrUnexpectedEOF)
	case cmf&0x0f != 8 || cmf>>4 > 7 || (uint16(cmf)<<8|uint16(flg))%31 != 0:
		return fmt.Errorf("inflate: %w", zlib.ErrHeader)
	case flg&0x20 != 0:
		return fmt.Errorf("inflate: %w", zlib.ErrDictionary)
	}
	if r.fr == nil {
		r.fr = flate.NewReader(src)
		return nil
	}
	if err := r.fr.(flate.Resetter).Reset(src, nil); err != nil {
		return fmt.Errorf("inflate: %w", err)
	}
	return nil
}

// endStream checks that the stream r.fr inflates ends here, and that the
// Adler-32 checksum after it in src is sum.
func (r *RawReader) endStream(src byteSource, sum uint32) error {
	if n, err := r.fr.Read(r.tmp[:1]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errPackEntry
		}
		return fmt.Errorf("inflate: longer than its header says: %w", err)
	}
	if _, err := io.ReadFull(src, r.tmp[:]); err != nil {
		return fmt.Errorf("inflate: %w", io.ErrUnexpectedEOF)
	}
	if binary.BigEndian.Uint32(r.tmp[:]) != sum {
		return fmt.Errorf("inflate: %w", zlib.ErrChecksum)
	}
	return nil
}

// buffer returns a slice of size bytes for an inflate: the scratch buffer
// for an object ReadScratch inflates whole, else a new one.
func (r *RawReader) buffer(size int64, whole bool) []byte {
	if !whole || !r.toScratch {
		return make([]byte, size)
	}
	if int64(cap(r.scratch)) < size {
		r.scratch = make([]byte, size, max(size, 4<<10))
	}
	return r.scratch[:size]
}

// loose reads h from its file in the object directory.
func (r *RawReader) loose(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
	hex := h.String()
	path := filepath.Join(r.objects, hex[:2], hex[2:])
	raw, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil, gitobj.ErrObjectNotFound
		}
		return 0, nil, err
	}
	typ, data, err := r.parseLoose(raw)
	if err != nil {
		return 0, nil, fmt.Errorf("read loose object %s: %w", h, err)
	}
	if got := r.hashObject(typ, data); got != h {
		return 0, nil, fmt.Errorf("read loose object %s: content hashes to %s: %w", h, got, errPackEntry)
	}
	return typ, data, nil
}

// maxLooseHeader bounds the "<type> <size>\0" header of a loose object.
const maxLooseHeader = 32

// parseLoose inflates the content of a loose object file: a zlib stream of
// "<type> <decimal size>\0" and the content, exactly size bytes.
func (r *RawReader) parseLoose(raw []byte) (gitobj.ObjectType, []byte, error) {
	r.br.Reset(raw)
	if err := r.startStream(&r.br); err != nil {
		return 0, nil, err
	}
	// The header is read a byte at a time, so that no content is read
	// before its size is known to be within the limit.
	var head [maxLooseHeader]byte
	n := 0
	for {
		if n == len(head) {
			return 0, nil, fmt.Errorf("%w: loose object header too long", errPackEntry)
		}
		if _, err := io.ReadFull(r.fr, head[n:n+1]); err != nil {
			return 0, nil, fmt.Errorf("inflate: %w", err)
		}
		if head[n] == 0 {
			break
		}
		n++
	}
	name, num, ok := bytes.Cut(head[:n], []byte{' '})
	if !ok {
		return 0, nil, fmt.Errorf("%w: loose object header without a size", errPackEntry)
	}
	typ, err := gitobj.ParseObjectType(string(name))
	if err != nil || (typ != gitobj.CommitObject && typ != gitobj.TreeObject && typ != gitobj.BlobObject && typ != gitobj.TagObject) {
		return 0, nil, fmt.Errorf("%w: loose object of type %q", errPackEntry, name)
	}
	if len(num) == 0 || (num[0] == '0' && len(num) > 1) {
		return 0, nil, fmt.Errorf("%w: loose object size %q", errPackEntry, num)
	}
	size, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil || size < 0 {
		return 0, nil, fmt.Errorf("%w: loose object size %q", errPackEntry, num)
	}
	if size > r.limit {
		return 0, nil, errTooLarge
	}
	data := r.buffer(size, true)
	if _, err := io.ReadFull(r.fr, data); err != nil {
		return 0, nil, fmt.Errorf("inflate: %w", err)
	}
	if r.adler == nil {
		r.adler = adler32.New()
	}
	r.adler.Reset()
	_, _ = r.adler.Write(head[:n+1])
	_, _ = r.adler.Write(data)
	if err := r.endStream(&r.br, r.adler.Sum32()); err != nil {
		return 0, nil, err
	}
	return typ, data, nil
}

// hashObject returns the object id of content data of type typ, as
// gitobj.ComputeHash computes it, with one hash reused for all objects.
func (r *RawReader) hashObject(typ gitobj.ObjectType, data []byte) gitobj.Hash {
	if r.sha == nil {
		r.sha = sha1.New()
	} else {
		r.sha.Reset()
	}
	r.head = append(strconv.AppendInt(append(append(r.head[:0], typ.String()...), ' '), int64(len(data)), 10), 0)
	_, _ = r.sha.Write(r.head)
	_, _ = r.sha.Write(data)
	var id gitobj.Hash
	r.sha.Sum(id[:0])
	return id
}

// entryCache keeps the objects a RawReader resolved from pack entries, by
// pack and offset, up to entryCacheBytes of content; past that it starts
// over. Objects over entryCacheObject are not kept.
type entryCache struct {
	m     map[entryKey]cachedEntry
	bytes int
}

type entryKey struct {
	pack string
	off  int64
}

type cachedEntry struct {
	typ  gitobj.ObjectType
	data []byte
}

const (
	entryCacheBytes  = 16 << 20
	entryCacheObject = 1 << 20
)

func (c *entryCache) get(pack string, off int64) (gitobj.ObjectType, []byte, bool) {
	e, ok := c.m[entryKey{pack, off}]
	return e.typ, e.data, ok
}

func (c *entryCache) put(pack string, off int64, typ gitobj.ObjectType, data []byte) {
	if len(data) > entryCacheObject {
		return
	}
	if c.m == nil || c.bytes+len(data) > entryCacheBytes {
		c.m, c.bytes = map[entryKey]cachedEntry{}, 0
	}
	c.m[entryKey{pack, off}] = cachedEntry{typ, data}
	c.bytes += len(data)
}
