package objects

import (
	"errors"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
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
type resilientStorer struct {
	storage.Storer
}

func (r resilientStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := r.Storer.EncodedObject(t, h)
	ri, ok := r.Storer.(reindexer)
	// A miss, or a pack whose index git has not finished writing: rescan
	// the packs and try again, a few times while a repack completes.
	for attempt := 1; err != nil && ok && attempt <= 3; attempt++ {
		ri.Reindex()
		if obj, err = r.Storer.EncodedObject(t, h); err == nil {
			return obj, nil
		}
		time.Sleep(time.Duration(attempt) * 15 * time.Millisecond)
	}
	return obj, err
}

func (r resilientStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	size, err := r.Storer.EncodedObjectSize(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		if ri, ok := r.Storer.(reindexer); ok {
			ri.Reindex()
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
			return h, nil
		}
		time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
	}
	return h, err
}
