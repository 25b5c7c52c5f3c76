package objects

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// ObjectReader reads the raw objects of a repository's own object
// directory in process: packed objects through packread.go, loose ones by
// inflating their file. Every object read is checked to hash to the id
// asked for. It is meant for reading many objects at once (a cold listing)
// without a `git cat-file` process; anything it cannot read (a missing
// object, an index or entry it does not handle, damage) is an error, and
// the caller reads that object another way. It is safe for concurrent use.
type ObjectReader struct {
	objects string // <git dir>/objects
	packs   *packIndexes
}

// ObjectReader returns an in-process reader of the store's objects, or
// false when the store is not a plain object directory that holds every
// object itself: one with alternates (objects/info/alternates) or a
// partial clone, whose missing objects git fetches on demand.
func (s *Store) ObjectReader() (*ObjectReader, bool) {
	r, ok := s.st.(resilientStorer)
	if !ok || r.objects == "" || r.packs == nil {
		return nil, false
	}
	if _, err := os.Stat(filepath.Join(r.objects, "info", "alternates")); !os.IsNotExist(err) {
		return nil, false
	}
	if m, _ := filepath.Glob(filepath.Join(r.objects, "pack", "*.promisor")); len(m) > 0 {
		return nil, false
	}
	if cfg, err := os.ReadFile(filepath.Join(filepath.Dir(r.objects), "config")); err != nil ||
		bytes.Contains(bytes.ToLower(cfg), []byte("partialclone")) {
		return nil, false
	}
	return &ObjectReader{objects: r.objects, packs: r.packs}, true
}

// errLooseObject marks a loose object file this reader could not decode.
var errLooseObject = errors.New("malformed loose object")

// Read returns the type and content of the object h. A packed copy is
// read first; then a loose one; a miss in both lists the packs again once,
// in case a repack moved h. A miss returns plumbing.ErrObjectNotFound.
func (r *ObjectReader) Read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	for attempt := 0; ; attempt++ {
		typ, data, err := r.packs.read(h)
		if !errors.Is(err, plumbing.ErrObjectNotFound) && !errors.Is(err, os.ErrNotExist) {
			return typ, data, err
		}
		typ, data, err = r.loose(h)
		if !errors.Is(err, plumbing.ErrObjectNotFound) || attempt > 0 {
			return typ, data, err
		}
		r.packs.reset()
	}
}

// loose reads h from its loose object file: a zlib stream of
// "<type> <size>\x00" and the content.
func (r *ObjectReader) loose(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	hex := h.String()
	path := filepath.Join(r.objects, hex[:2], hex[2:])
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, nil, plumbing.ErrObjectNotFound
	}
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	limit := r.packs.limit
	if limit <= 0 {
		limit = defaultPackedReadLimit
	}
	if fi.Size() > limit {
		return 0, nil, fmt.Errorf("read loose object %s: %w", h, errTooLarge)
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return 0, nil, fmt.Errorf("read loose object %s: %w", h, err)
	}
	typ, data, err := inflateLoose(raw, limit)
	if err != nil {
		return 0, nil, fmt.Errorf("read loose object %s: %w", h, err)
	}
	if got := hashOf(typ, data); got != h {
		return 0, nil, fmt.Errorf("read loose object %s: content hashes to %s: %w", h, got, errLooseObject)
	}
	return typ, data, nil
}

// inflateLoose decodes the contents of a loose object file.
func inflateLoose(raw []byte, limit int64) (plumbing.ObjectType, []byte, error) {
	// The header is short: inflate a little to read it, then the rest
	// into a buffer of the size it names.
	zr, err := zlibReader(bytes.NewReader(raw))
	if err != nil {
		return 0, nil, err
	}
	defer releaseZlib(zr)
	var head [64]byte
	n, err := io.ReadAtLeast(zr, head[:], 1)
	if err != nil && n == 0 {
		return 0, nil, errLooseObject
	}
	// Read until the NUL that ends the header, or the header buffer is full.
	for bytes.IndexByte(head[:n], 0) < 0 && n < len(head) {
		m, err := zr.Read(head[n:])
		n += m
		if err != nil {
			break
		}
	}
	end := bytes.IndexByte(head[:n], 0)
	if end < 0 {
		return 0, nil, errLooseObject
	}
	typName, sizeText, ok := strings.Cut(string(head[:end]), " ")
	typ, err := plumbing.ParseObjectType(typName)
	if !ok || err != nil || typ < plumbing.CommitObject || typ > plumbing.TagObject {
		return 0, nil, errLooseObject
	}
	size, err := strconv.ParseInt(sizeText, 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != sizeText {
		return 0, nil, errLooseObject
	}
	if size > limit {
		return 0, nil, errTooLarge
	}
	data := make([]byte, size)
	got := copy(data, head[end+1:n])
	if int64(n-end-1) > size {
		return 0, nil, fmt.Errorf("longer than its header says: %w", errLooseObject)
	}
	if _, err := io.ReadFull(zr, data[got:]); err != nil {
		return 0, nil, fmt.Errorf("inflate: %w", err)
	}
	var extra [1]byte
	if m, err := zr.Read(extra[:]); m != 0 || err != io.EOF {
		return 0, nil, fmt.Errorf("inflate: longer than its header says: %w", errLooseObject)
	}
	return typ, data, nil
}
