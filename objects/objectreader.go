package objects

import (
	"bufio"
	"bytes"
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
	"slices"
	"strconv"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/mmapfile"
	"github.com/klauspost/compress/flate"
)

// ObjectReader reads whole objects straight from a repository's object
// directory, for readers of thousands of small objects in a row (a cold
// chain walk reads about five per thread commit, a cold thread listing
// about three per thread), which would otherwise ask a `git cat-file`
// process for each. A packed object is found by a binary search of its
// pack's index (packidx.go) and inflated from the mapped pack, its delta
// chain followed through a small cache of resolved entries (1 MiB per
// reader: the list runs two under a tight heap limit); a loose
// object is inflated from its file.
//
// Every object is hashed again and checked against its name, which
// `git cat-file` does not do: zlib's checksum catches damaged data, but
// not an index that points at another object, and the chain walk caches
// what it read as named. The hash is cheap next to the inflate (one reused
// SHA-1 over content already in cache): a cold list of 10,000 threads
// cost the same CPU with and without it, within the noise of a shared
// machine (0.91 against 0.92 s, medians of five), so it stays.
//
// It answers gitobj.ErrObjectNotFound for an object it cannot find
// (an alternate object directory, a pack written after it looked) and
// another error for one it does not handle (a version 1 index, an object
// over its size limit, a damaged entry): callers then read the object
// another way, through the object database or git itself.
//
// The packs are mapped into memory, and the pages read count towards the
// process's resident memory until the system reclaims them: reading most
// of a large pack would cost as much memory as the pack. The reader keeps
// count of the windows of the packs it read from (the system maps about
// 64 KiB around each page it faults in) and lets go of the mapped pages
// when they pass maxWindows. The pages stay in the page cache: a read of
// them after that costs a minor fault.
//
// The zlib streams are inflated with github.com/klauspost/compress/flate,
// whose decoder reads a bytes.Reader without an interface call per byte:
// reading the 60,000 objects of a cold 10,000-thread listing in pack
// order took 183 ms against 281 ms with compress/flate (best of 18 runs
// on a shared machine). The zlib framing, the Adler-32 checksum and the
// SHA-1 of every object stay this reader's own.
//
// An ObjectReader is not safe for concurrent use: each goroutine gets its
// own (Another), and they share the pack indexes and mappings, which are.
type ObjectReader struct {
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
	sum     []byte    // the hash of the last object
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

	windows    []packWindow // read from since the pages were let go, each once
	maxWindows int          // maxWindows; tests lower it
}

// packWindow is a window of pack data, of windowSize bytes.
type packWindow struct {
	pack *packFile
	at   int64 // offset / windowSize
}

const (
	windowSize = 64 << 10
	// maxWindows bounds the pack data one reader keeps mapped in: 1 MiB.
	maxWindows = 16
)

// NewObjectReader returns a reader of the object database in objectsDir
// (<git dir>/objects).
func NewObjectReader(objectsDir string) *ObjectReader {
	return newObjectReader(objectsDir, &packIndexes{dir: filepath.Join(objectsDir, "pack")}, defaultPackedReadLimit)
}

// ObjectReader returns a reader of the store's object directory, sharing
// the pack indexes of the store's database, or false when the store is
// not on a directory (a memory storage in tests).
func (s *Store) ObjectReader() (*ObjectReader, bool) {
	db := s.st
	if db == nil || db.objects == "" || db.packs == nil {
		return nil, false
	}
	limit := db.packs.limit
	if limit <= 0 {
		limit = defaultPackedReadLimit
	}
	return newObjectReader(db.objects, db.packs, limit), true
}

func newObjectReader(objectsDir string, packs *packIndexes, limit int64) *ObjectReader {
	return &ObjectReader{objects: objectsDir, packs: packs, limit: limit, windows: make([]packWindow, 0, maxWindows), maxWindows: maxWindows}
}

// Another returns a new reader of the same object database, sharing r's
// pack indexes and mappings: one for another goroutine.
func (r *ObjectReader) Another() *ObjectReader {
	n := newObjectReader(r.objects, r.packs, r.limit)
	n.maxWindows = r.maxWindows
	return n
}

// Read returns the type and content of object h. The content belongs to
// the caller but may be shared with later reads of the same object: it
// must not be modified.
func (r *ObjectReader) Read(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
	return r.read(h)
}

// ReadScratch is Read for an object the caller only parses (a commit, a
// tree): its content may be in a buffer the reader reuses, good only
// until its next read.
func (r *ObjectReader) ReadScratch(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
	r.toScratch = true
	defer func() { r.toScratch = false }()
	return r.read(h)
}

func (r *ObjectReader) read(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
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
func (r *ObjectReader) packed(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
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

// touched notes a read at off in f (an object's entry or one of its delta
// chain's), and lets go of the mapped pages of
// every pack read from once they may pass maxWindows. Other readers of
// the same packs then fault the pages in again, from the page cache.
func (r *ObjectReader) touched(f *packFile, off int64) {
	if f.mapped == nil {
		return
	}
	// A list, not a map: it holds a few windows, and the search is cheaper
	// than a map's hashing on every object read.
	w := packWindow{f, off / windowSize}
	if slices.Contains(r.windows, w) {
		return
	}
	if r.windows = append(r.windows, w); len(r.windows) < r.maxWindows {
		return
	}
	for i, w := range r.windows {
		if !slices.ContainsFunc(r.windows[:i], func(d packWindow) bool { return d.pack == w.pack }) {
			mmapfile.DropPages(w.pack.mapped)
		}
	}
	r.windows = r.windows[:0]
}

// entry decodes the pack entry at off, as readPackEntry does, reading
// through the mapping when there is one and keeping what it resolves
// through deltas in r.bases, so that a chain of deltas sharing bases (a
// gc'd history of the same tree) inflates each base once. An object read
// without a delta is not kept: most are, and are read once.
func (r *ObjectReader) entry(f *packFile, pack string, off int64, idx string) (gitobj.ObjectType, []byte, error) {
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
func (r *ObjectReader) source(f *packFile, off int64) (byteSource, error) {
	if f.mapped != nil {
		if off < 0 || off >= int64(len(f.mapped)) {
			return nil, errPackEntry
		}
		r.touched(f, off)
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
func (r *ObjectReader) inflate(src byteSource, size int64, whole bool) ([]byte, error) {
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
func (r *ObjectReader) startStream(src byteSource) error {
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
func (r *ObjectReader) endStream(src byteSource, sum uint32) error {
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
func (r *ObjectReader) buffer(size int64, whole bool) []byte {
	if !whole || !r.toScratch {
		return make([]byte, size)
	}
	if int64(cap(r.scratch)) < size {
		r.scratch = make([]byte, size, max(size, 4<<10))
	}
	return r.scratch[:size]
}

// loose reads h from its file in the object directory.
func (r *ObjectReader) loose(h gitobj.Hash) (gitobj.ObjectType, []byte, error) {
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
func (r *ObjectReader) parseLoose(raw []byte) (gitobj.ObjectType, []byte, error) {
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
func (r *ObjectReader) hashObject(typ gitobj.ObjectType, data []byte) gitobj.Hash {
	if r.sha == nil {
		r.sha = sha1.New()
	} else {
		r.sha.Reset()
	}
	r.head = append(strconv.AppendInt(append(append(r.head[:0], typ.String()...), ' '), int64(len(data)), 10), 0)
	_, _ = r.sha.Write(r.head)
	_, _ = r.sha.Write(data)
	r.sum = r.sha.Sum(r.sum[:0]) // into a reused slice: Sum(id[:0]) would put id on the heap
	return gitobj.Hash(r.sum)
}

// entryCache keeps the objects an ObjectReader resolved from pack entries, by
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
	entryCacheBytes  = 1 << 20
	entryCacheObject = 64 << 10
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
