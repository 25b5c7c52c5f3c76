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
// Reads that miss rescan the packs once; writes are retried.
type resilientStorer struct {
	storage.Storer
}

func (r resilientStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := r.Storer.EncodedObject(t, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		if ri, ok := r.Storer.(reindexer); ok {
			ri.Reindex()
			return r.Storer.EncodedObject(t, h)
		}
	}
	return obj, err
}

func (r resilientStorer) HasEncodedObject(h plumbing.Hash) error {
	err := r.Storer.HasEncodedObject(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		if ri, ok := r.Storer.(reindexer); ok {
			ri.Reindex()
			return r.Storer.HasEncodedObject(h)
		}
	}
	return err
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
