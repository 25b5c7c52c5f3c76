package objects

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/klauspost/compress/flate"
)

// DB is the object database of a git directory: its loose objects and
// packs, read and written in-process. It is safe for concurrent use.
//
// It survives git running beside it. `git gc` and `git repack` move loose
// objects into new packs and delete emptied fan-out directories while a
// git-uwf process is open: a read that misses lists the packs again (a few
// times, while a repack finishes), and a loose write that loses the race
// for its fan-out directory is retried. Existence checks before a write do
// not rescan: a missed packed copy only costs a duplicate loose object.
//
// Objects are content-addressed, so one this process has read or written
// stays true: both are kept in a cache that is answered first. Loose
// objects are read from their files; packed ones are found with a binary
// search of the pack indexes (packidx.go) and decoded from the pack
// (packread.go). What those do not handle (an index of version 1, an
// object over the in-memory read limit, an object only an alternate
// object directory holds) is read through `git cat-file`.
type DB struct {
	gitDir  string // the git directory, for git cat-file
	objects string // <git dir>/objects
	packs   *packIndexes
	cache   *objectCache
}

// OpenDB opens the object database of the git directory gitDir.
func OpenDB(gitDir string) (*DB, error) {
	abs, err := filepath.Abs(gitDir)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", gitDir, err)
	}
	objects := filepath.Join(abs, "objects")
	if _, err := os.Stat(objects); err != nil {
		return nil, fmt.Errorf("open store %s: not a git directory: %w", gitDir, err)
	}
	return &DB{gitDir: abs, objects: objects,
		packs: &packIndexes{dir: filepath.Join(objects, "pack")},
		cache: newObjectCache(defaultCacheBytes)}, nil
}

// GitDir returns the git directory of the database.
func (db *DB) GitDir() string { return db.gitDir }

// NewEncodedObject returns an empty object to fill and pass to
// SetEncodedObject.
func (db *DB) NewEncodedObject() gitobj.EncodedObject { return &gitobj.MemoryObject{} }

// EncodedObject reads the object h of type t (gitobj.AnyObject: any
// type). A missing object, or one of another type, is
// gitobj.ErrObjectNotFound.
func (db *DB) EncodedObject(t gitobj.ObjectType, h gitobj.Hash) (gitobj.EncodedObject, error) {
	obj, err := db.read(h)
	if err != nil {
		return nil, err
	}
	if t != gitobj.AnyObject && obj.Type() != t {
		return nil, gitobj.ErrObjectNotFound
	}
	return obj, nil
}

// read reads h from the cache, the packs, its loose file, or git. The
// packs come first, as in git: most objects of a repository that has been
// packed once are in a pack, and their index is in memory, while a loose
// look-up costs a system call even when it fails.
func (db *DB) read(h gitobj.Hash) (*gitobj.MemoryObject, error) {
	if obj, ok := db.cache.get(h); ok {
		return obj, nil
	}
	// A miss, or a pack whose index git has not finished writing: list the
	// packs again and retry, a few times while a repack completes.
	for attempt := 0; ; attempt++ {
		obj, err := db.packs.object(h)
		if err != nil {
			packErr := err
			obj, err = db.readLoose(h)
			if err != nil && !errors.Is(packErr, gitobj.ErrObjectNotFound) && !errors.Is(packErr, os.ErrNotExist) {
				// An index, entry or size the pack reader does not
				// handle, and no good loose copy: git reads it. A loose
				// copy is tried first, so that one index this reader
				// cannot read does not send every loose read to git.
				obj, err = db.catFile(h)
			}
		}
		if err == nil {
			db.cache.put(obj)
			return obj, nil
		}
		if !errors.Is(err, gitobj.ErrObjectNotFound) && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if attempt == 3 {
			return nil, gitobj.ErrObjectNotFound
		}
		if attempt == 0 {
			// Objects of an alternate object directory are git's to find.
			if _, err := os.Stat(filepath.Join(db.objects, "info", "alternates")); err == nil {
				if obj, err := db.catFile(h); err == nil {
					db.cache.put(obj)
					return obj, nil
				}
			}
		}
		db.packs.reset()
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 15 * time.Millisecond)
		}
	}
}

// HasEncodedObject reports whether h is stored: a cached object, a name in
// a pack index, or a loose file. It does not list the packs again on a
// miss.
func (db *DB) HasEncodedObject(h gitobj.Hash) error {
	if _, ok := db.cache.get(h); ok {
		return nil
	}
	found, idxErr := db.packs.has(h)
	if found {
		return nil
	}
	if _, err := os.Stat(db.loosePath(h)); err == nil {
		return nil
	}
	if idxErr != nil {
		// An index this reader does not handle: ask git.
		if _, err := db.catFile(h); err == nil {
			return nil
		}
	}
	return gitobj.ErrObjectNotFound
}

// SetEncodedObject writes obj as a loose object, as git does: zlib data
// written to a temporary file in the fan-out directory, made read-only and
// renamed into place. An object already stored loose is not written again.
func (db *DB) SetEncodedObject(obj gitobj.EncodedObject) (gitobj.Hash, error) {
	m, ok := obj.(*gitobj.MemoryObject)
	if !ok {
		r, err := obj.Reader()
		if err != nil {
			return gitobj.ZeroHash, err
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return gitobj.ZeroHash, err
		}
		m = &gitobj.MemoryObject{}
		m.SetType(obj.Type())
		m.Write(data)
	}
	h := m.Hash()
	path := db.loosePath(h)
	if _, err := os.Stat(path); err == nil {
		db.cache.put(m)
		return h, nil
	}
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if err = writeLoose(path, m); err == nil {
			db.cache.put(m)
			return h, nil
		}
		time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
	}
	return gitobj.ZeroHash, fmt.Errorf("write object %s: %w", h, err)
}

func (db *DB) loosePath(h gitobj.Hash) string {
	hex := h.String()
	return filepath.Join(db.objects, hex[:2], hex[2:])
}

// writeLoose writes m to path, through a temporary file beside it.
func writeLoose(path string, m *gitobj.MemoryObject) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(deflateLoose(m))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o444)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// deflateLoose returns the loose encoding of m: "<type> <size>\x00" and
// the content, as one zlib stream (RFC 1950). The deflate data comes from
// klauspost/compress's stateless encoder, whose match table lives on the
// stack and whose token buffer and bit writer come from pools of the
// package: a compress/flate writer allocates over half a megabyte of
// tables of its own, and in a process that writes a few small objects, as
// a step does, the first one took 0.8–1.2 ms against 0.2–0.3 ms for this
// (docs/performance.md, "Fewer page faults in a step"). The header says
// "fastest", as git's own loose objects do at its default
// core.looseCompression.
func deflateLoose(m *gitobj.MemoryObject) []byte {
	content := m.Bytes()
	raw := make([]byte, 0, len(content)+32)
	raw = fmt.Appendf(raw, "%s %d\x00", m.Type(), len(content))
	raw = append(raw, content...)
	var out bytes.Buffer
	out.Grow(len(raw)/2 + 64)
	out.Write([]byte{0x78, 0x01}) // deflate, 32 KiB window, fastest; header check bits
	// StatelessDeflate fails only when its writer does: a bytes.Buffer
	// does not.
	_ = flate.StatelessDeflate(&out, raw, true, nil)
	return binary.BigEndian.AppendUint32(out.Bytes(), adler32.Checksum(raw))
}

// readLoose reads h's loose file; os.ErrNotExist when there is none.
func (db *DB) readLoose(h gitobj.Hash) (*gitobj.MemoryObject, error) {
	// Read whole: a loose file is small, and a buffered reader would
	// allocate more than most of them are.
	raw, err := os.ReadFile(db.loosePath(h))
	if err != nil {
		return nil, err
	}
	obj, err := decodeLoose(raw)
	if err != nil {
		return nil, fmt.Errorf("read loose object %s: %w", h, err)
	}
	return obj, nil
}

// maxDeflateRatio bounds what deflate inflates a byte to: a loose object
// whose header claims more than its file could hold is damaged, and its
// size is not allocated.
const maxDeflateRatio = 1032

// decodeLoose inflates the loose object file raw: a zlib stream of
// "<type> <size>\x00" and the content, and nothing after it.
func decodeLoose(raw []byte) (*gitobj.MemoryObject, error) {
	src := bytes.NewReader(raw) // an io.ByteReader: the inflater reads it with no buffer of its own
	zr, err := zlibReader(src)
	if err != nil {
		return nil, err
	}
	defer func() {
		zr.Close()
		zlibReaders.Put(zr)
	}()
	var head [maxLooseHeader]byte
	typ, size, _, err := readLooseHeader(zr, &head)
	if err != nil {
		return nil, err
	}
	if size > maxDeflateRatio*int64(len(raw)) {
		return nil, fmt.Errorf("header says %d bytes, more than a file of %d can hold", size, len(raw))
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	switch n, err := zr.Read(make([]byte, 1)); {
	case n != 0:
		return nil, errors.New("longer than its header says")
	case err != io.EOF:
		return nil, fmt.Errorf("inflate: %w", err)
	case src.Len() != 0:
		return nil, errors.New("garbage after its zlib stream")
	}
	obj := &gitobj.MemoryObject{}
	obj.SetType(typ)
	obj.Write(data)
	return obj, nil
}

// errLooseHeader marks a loose object header that is not "<type>
// <size>\x00" as git writes one.
var errLooseHeader = errors.New("malformed loose object header")

// maxLooseHeader bounds the "<type> <size>\x00" header of a loose object.
const maxLooseHeader = 32

// readLooseHeader reads the header of a loose object from its inflated
// stream zr into head, a byte at a time, so that nothing past it is read
// before its size is known: the content can then go straight into a
// slice of that size. It returns the type, the size and the header's
// length with its NUL. A header git would refuse is an error wrapping
// errLooseHeader; one zr fails to inflate, "inflate: " and zr's error.
func readLooseHeader(zr io.Reader, head *[maxLooseHeader]byte) (gitobj.ObjectType, int64, int, error) {
	n := 0
	for ; ; n++ {
		if n == len(head) {
			return 0, 0, 0, fmt.Errorf("%w: longer than %d bytes", errLooseHeader, maxLooseHeader)
		}
		if _, err := io.ReadFull(zr, head[n:n+1]); err != nil {
			return 0, 0, 0, fmt.Errorf("inflate: %w", err)
		}
		if head[n] == 0 {
			break
		}
	}
	name, num, ok := bytes.Cut(head[:n], []byte{' '})
	if !ok {
		return 0, 0, 0, fmt.Errorf("%w %q: no size", errLooseHeader, head[:n])
	}
	typ, err := gitobj.ParseObjectType(string(name))
	if err != nil || !isBaseType(typ) {
		return 0, 0, 0, fmt.Errorf("%w: type %q", errLooseHeader, name)
	}
	size, ok := looseSize(num)
	if !ok {
		return 0, 0, 0, fmt.Errorf("%w: size %q", errLooseHeader, num)
	}
	return typ, size, n + 1, nil
}

// looseSize parses the size in a loose object's header as git does:
// decimal digits, no sign, no leading zero.
func looseSize(text []byte) (int64, bool) {
	if len(text) == 0 || text[0] < '0' || text[0] > '9' || (text[0] == '0' && len(text) > 1) {
		return 0, false
	}
	size, err := strconv.ParseInt(string(text), 10, 64)
	return size, err == nil
}

func isBaseType(t gitobj.ObjectType) bool {
	switch t {
	case gitobj.CommitObject, gitobj.TreeObject, gitobj.BlobObject, gitobj.TagObject:
		return true
	}
	return false
}

// catFile reads h through `git cat-file` (gitrepo.Batch), for what the
// in-process readers do not handle.
func (db *DB) catFile(h gitobj.Hash) (*gitobj.MemoryObject, error) {
	run, err := gitrepo.NewRunner(db.gitDir, []string{"GIT_DIR=" + db.gitDir})
	if err != nil {
		return nil, err
	}
	b, err := run.NewBatch(context.Background())
	if err != nil {
		return nil, fmt.Errorf("read object %s: %w", h, err)
	}
	objs, err := b.Get([]string{h.String()})
	if cerr := b.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("read object %s: %w", h, err)
	}
	o := objs[0]
	if o.Missing {
		return nil, gitobj.ErrObjectNotFound
	}
	typ, err := gitobj.ParseObjectType(o.Type)
	if err != nil || !isBaseType(typ) {
		return nil, fmt.Errorf("read object %s: git cat-file answered type %q", h, o.Type)
	}
	obj := &gitobj.MemoryObject{}
	obj.SetType(typ)
	obj.Write(o.Data)
	return obj, nil
}

// defaultCacheBytes bounds the object cache of a DB.
const defaultCacheBytes = 96 << 20

// objectCache keeps objects read or written, up to a total size; the
// oldest go first.
type objectCache struct {
	max int64

	mu    sync.Mutex
	size  int64
	objs  map[gitobj.Hash]*gitobj.MemoryObject
	order []gitobj.Hash // oldest first
}

func newObjectCache(max int64) *objectCache {
	return &objectCache{max: max, objs: map[gitobj.Hash]*gitobj.MemoryObject{}}
}

func (c *objectCache) get(h gitobj.Hash) (*gitobj.MemoryObject, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	obj, ok := c.objs[h]
	return obj, ok
}

func (c *objectCache) put(obj *gitobj.MemoryObject) {
	if obj.Size() > c.max {
		return
	}
	h := obj.Hash()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.objs[h]; ok {
		return
	}
	for c.size+obj.Size() > c.max && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.size -= c.objs[old].Size()
		delete(c.objs, old)
	}
	c.objs[h] = obj
	c.order = append(c.order, h)
	c.size += obj.Size()
}
