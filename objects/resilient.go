package objects

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage"
)

// reindexer is implemented by go-git's filesystem storage: it forgets the
// packfile list it read at open time.
type reindexer interface{ Reindex() }

// resilientStorer makes a go-git filesystem storage survive git running
// beside it. `git gc` and `git repack` move loose objects into new packs
// and delete emptied object directories while a git-uwf process is open:
// go-git then misses objects that now live in a pack it has not listed,
// and a loose-object write can lose the race for its fan-out directory.
// Reads that miss rescan the packs (a few times, while a repack finishes);
// writes are retried. Existence checks before a write do not rescan: a
// missed packed copy only costs a duplicate loose object.
//
// Objects are content-addressed, so one this process has read or written
// stays true: both are kept in the object cache it shares with the go-git
// storage, and answered from it first (go-git opens the loose file before
// it looks at its cache). Existence checks look for a loose file, then
// search the pack indexes without decoding them (packidx.go); reads of an
// object that is not loose find its pack entry the same way and decode it
// (packread.go), falling back to go-git for what that does not handle.
type resilientStorer struct {
	storage.Storer
	cache   cache.Object // shared with the wrapped storage
	objects string       // <git dir>/objects; "" when the storage is not a directory
	packs   *packIndexes
}

// newResilientStorer wraps st, a filesystem storage of the objects
// directory objectsDir that uses c as its object cache.
func newResilientStorer(st storage.Storer, c cache.Object, objectsDir string) resilientStorer {
	return resilientStorer{Storer: st, cache: c, objects: objectsDir,
		packs: &packIndexes{dir: filepath.Join(objectsDir, "pack")}}
}

func (r resilientStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if obj, ok := r.cached(h); ok {
		if t != plumbing.AnyObject && obj.Type() != t {
			return nil, plumbing.ErrObjectNotFound
		}
		return obj, nil
	}
	if obj, ok := r.packed(h); ok {
		if t != plumbing.AnyObject && obj.Type() != t {
			return nil, plumbing.ErrObjectNotFound
		}
		return obj, nil
	}
	obj, err := r.Storer.EncodedObject(t, h)
	ri, ok := r.Storer.(reindexer)
	// A miss, or a pack whose index git has not finished writing: rescan
	// the packs and try again, a few times while a repack completes.
	for attempt := 1; err != nil && ok && attempt <= 3; attempt++ {
		r.reindex(ri)
		if obj, err = r.Storer.EncodedObject(t, h); err == nil {
			return obj, nil
		}
		time.Sleep(time.Duration(attempt) * 15 * time.Millisecond)
	}
	return obj, err
}

func (r resilientStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if obj, ok := r.cached(h); ok {
		return obj.Size(), nil
	}
	if obj, ok := r.packed(h); ok {
		return obj.Size(), nil
	}
	size, err := r.Storer.EncodedObjectSize(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		if ri, ok := r.Storer.(reindexer); ok {
			r.reindex(ri)
			return r.Storer.EncodedObjectSize(h)
		}
	}
	return size, err
}

func (r resilientStorer) SetEncodedObject(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	var (
		h   plumbing.Hash
		err error
	)
	for attempt := 0; attempt < 4; attempt++ {
		if h, err = r.Storer.SetEncodedObject(obj); err == nil {
			if m, ok := obj.(*plumbing.MemoryObject); ok && r.cache != nil && m.Hash() == h {
				r.cache.Put(m)
			}
			return h, nil
		}
		time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
	}
	return h, err
}

// HasEncodedObject reports whether h is stored: a cached object, a loose
// file, or a name in a pack index. Like go-git's, it does not rescan the
// packs on a miss.
func (r resilientStorer) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := r.cached(h); ok {
		return nil
	}
	if r.objects == "" {
		return r.Storer.HasEncodedObject(h)
	}
	hex := h.String()
	if _, err := os.Stat(filepath.Join(r.objects, hex[:2], hex[2:])); err == nil {
		return nil
	}
	found, err := r.packs.has(h)
	switch {
	case found:
		return nil
	case err != nil:
		return r.Storer.HasEncodedObject(h) // an index this reader does not handle
	}
	return plumbing.ErrObjectNotFound
}

// packed reads h from a pack without decoding the pack's whole index
// (packread.go) when it is not a loose object, and caches it. It reports
// false for anything else (loose, missing, an index or entry that reader
// does not handle, an object over its size limit): the caller then asks
// go-git. A miss lists the packs again once, in case a repack replaced
// the one that held h.
func (r resilientStorer) packed(h plumbing.Hash) (plumbing.EncodedObject, bool) {
	if r.objects == "" || r.packs == nil {
		return nil, false
	}
	hex := h.String()
	if _, err := os.Stat(filepath.Join(r.objects, hex[:2], hex[2:])); err == nil {
		return nil, false
	}
	for attempt := 0; attempt < 2; attempt++ {
		obj, err := r.packs.object(h)
		if err == nil {
			if r.cache != nil {
				r.cache.Put(obj)
			}
			return obj, true
		}
		if !errors.Is(err, plumbing.ErrObjectNotFound) && !errors.Is(err, os.ErrNotExist) {
			return nil, false
		}
		r.packs.reset()
	}
	return nil, false
}

// cached returns the object h if this process has read or written it.
func (r resilientStorer) cached(h plumbing.Hash) (plumbing.EncodedObject, bool) {
	if r.cache == nil {
		return nil, false
	}
	return r.cache.Get(h)
}

// reindex makes the storage and the pack index reader list the packs again.
func (r resilientStorer) reindex(ri reindexer) {
	ri.Reindex()
	if r.packs != nil {
		r.packs.reset()
	}
}
