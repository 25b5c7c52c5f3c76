package chain

import (
	"bytes"
	"encoding/hex"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/objects"
)

// The list batch path's objects read in process (objects.ObjectReader)
// rather than through `git cat-file`: the same asks and answers, with no
// process to start and no pipe to parse, and git's own work (finding,
// inflating and applying deltas) done by the reading goroutine.

// objectBatch reads the objects of one flight's rounds (list_batch.go):
// a cat-file process or an in-process reader.
type objectBatch interface {
	// AskEach asks for names and calls each, on another goroutine and in
	// order, with the answer to every name; see gitrepo.Batch.AskEach.
	AskEach(names []string, each func(i int, o gitrepo.Object)) answers
	Close() error
}

// answers are the answers to one AskEach, ready once Wait returns.
type answers interface {
	Wait() ([]gitrepo.Object, error)
}

// catFile is a gitrepo.Batch as an objectBatch.
type catFile struct{ *gitrepo.Batch }

func (c catFile) AskEach(names []string, each func(int, gitrepo.Object)) answers {
	return c.Batch.AskEach(names, each)
}

// localBatch answers asks in process from an objects.ObjectReader, on a
// goroutine of its own, in the order asked. An object it cannot read
// (missing, damaged, in a pack it does not handle) is answered as missing,
// which leaves its thread to the usual path: go-git then reads it, or
// words the error.
type localBatch struct {
	r *objects.ObjectReader

	mu      sync.Mutex
	queue   []*localAsk
	closing bool
	wake    chan struct{} // cap 1
	done    chan struct{} // closed when the goroutine has finished
	started bool
}

// localAsk is one AskEach of a localBatch.
type localAsk struct {
	names []string
	each  func(int, gitrepo.Object)
	ready chan struct{}
}

// Wait waits for every answer to have been handed to each. A localBatch
// answers through each alone and never fails: unreadable objects are
// answered as missing.
func (a *localAsk) Wait() ([]gitrepo.Object, error) {
	<-a.ready
	return nil, nil
}

func newLocalBatch(r *objects.ObjectReader) *localBatch {
	return &localBatch{r: r, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (b *localBatch) AskEach(names []string, each func(int, gitrepo.Object)) answers {
	a := &localAsk{names: names, each: each, ready: make(chan struct{})}
	b.mu.Lock()
	if b.closing {
		b.mu.Unlock()
		close(a.ready) // not answered: only Close comes after the last ask
		return a
	}
	if !b.started {
		b.started = true
		go b.loop()
	}
	b.queue = append(b.queue, a)
	b.mu.Unlock()
	notify(b.wake)
	return a
}

// notify wakes the goroutine waiting on c, if any.
func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// loop answers the queued asks in order until Close.
func (b *localBatch) loop() {
	defer close(b.done)
	for {
		b.mu.Lock()
		var a *localAsk
		if len(b.queue) > 0 {
			a, b.queue = b.queue[0], b.queue[1:]
		}
		closing := b.closing
		b.mu.Unlock()
		if a == nil {
			if closing {
				return
			}
			<-b.wake
			continue
		}
		for i, n := range a.names {
			a.each(i, b.read(n))
		}
		close(a.ready)
	}
}

// Close answers what was asked and stops the goroutine.
func (b *localBatch) Close() error {
	b.mu.Lock()
	b.closing = true
	started := b.started
	b.mu.Unlock()
	if started {
		notify(b.wake)
		<-b.done
	}
	return nil
}

// read answers one name: an object id, or an object id, a colon and a
// path of tree entries, as the list batch path asks them.
func (b *localBatch) read(name string) gitrepo.Object {
	missing := gitrepo.Object{Name: name, Missing: true}
	id, path, hasPath := strings.Cut(name, ":")
	var h plumbing.Hash
	if len(id) != 2*len(h) {
		return missing
	}
	if _, err := hex.Decode(h[:], []byte(id)); err != nil {
		return missing
	}
	typ, data, err := b.r.Read(h)
	if err != nil {
		return missing
	}
	if hasPath {
		for _, part := range strings.Split(path, "/") {
			if typ != plumbing.TreeObject {
				return missing
			}
			next, ok := rawTreeEntry(data, part)
			if !ok {
				return missing
			}
			h = next
			if typ, data, err = b.r.Read(h); err != nil {
				return missing
			}
		}
	}
	return gitrepo.Object{Name: name, OID: h.String(), Type: typ.String(), Data: data}
}

// rawTreeEntry finds the entry called name in raw tree data: entries of
// "<mode> <name>\x00" and a 20-byte id. A damaged tree finds nothing.
func rawTreeEntry(tree []byte, name string) (plumbing.Hash, bool) {
	for len(tree) > 0 {
		sp := bytes.IndexByte(tree, ' ')
		if sp < 0 {
			return plumbing.Hash{}, false
		}
		nul := bytes.IndexByte(tree[sp+1:], 0)
		if nul < 0 {
			return plumbing.Hash{}, false
		}
		end := sp + 1 + nul + 1 + len(plumbing.Hash{})
		if end > len(tree) {
			return plumbing.Hash{}, false
		}
		if string(tree[sp+1:sp+1+nul]) == name {
			var h plumbing.Hash
			copy(h[:], tree[sp+1+nul+1:end])
			return h, true
		}
		tree = tree[end:]
	}
	return plumbing.Hash{}, false
}
