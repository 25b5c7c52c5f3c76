package chain

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// Relative is another thread that shares history with a thread: both
// chains start with the same commits (a fork is a new ref on an existing
// step commit). Shared is how many leading commits they have in common
// (1 = only the start commit), ForkPoint the last of them.
type Relative struct {
	Thread    ThreadID
	Head      plumbing.Hash
	Shared    int
	ForkPoint plumbing.Hash
	// Parent is true when t was forked from this thread: it is older and
	// no other older relative shares more of t's history.
	Parent bool
}

// Relatives lists the threads that share history with t, oldest first.
// chainOf is t's chain (as Chain returns it). Threads are matched by the
// start node every commit of a thread carries, so only threads that really
// share a start commit are walked.
func (r *Repo) Relatives(ctx context.Context, t *Thread, chainOf []*Entry) ([]Relative, error) {
	ids, heads, err := r.ThreadIDs(ctx)
	if err != nil {
		return nil, err
	}
	if len(chainOf) == 0 {
		return nil, nil
	}
	start, err := r.startOf(t.Head.Commit)
	if err != nil {
		return nil, err
	}
	var out []Relative
	parent := -1
	for _, id := range ids {
		if id == t.ID {
			continue
		}
		head := heads[id]
		s, err := r.startOf(head)
		if err != nil || s != start {
			continue // unreadable or unrelated: not a relative
		}
		other, err := r.Chain(ctx, head)
		if err != nil {
			return nil, fmt.Errorf("read thread %s: %w", id, err)
		}
		n := 0
		for n < len(other) && n < len(chainOf) && other[n].Commit == chainOf[n].Commit {
			n++
		}
		if n == 0 {
			continue
		}
		out = append(out, Relative{Thread: id, Head: head, Shared: n, ForkPoint: chainOf[n-1].Commit})
		if id < t.ID && (parent < 0 || n > out[parent].Shared) {
			parent = len(out) - 1
		}
	}
	if parent >= 0 {
		out[parent].Parent = true
	}
	slices.SortFunc(out, func(a, b Relative) int {
		switch {
		case a.Thread < b.Thread:
			return -1
		case a.Thread > b.Thread:
			return 1
		}
		return 0
	})
	return out, nil
}

// RunningThreads lists the threads whose step lock another process holds
// now, in id order.
func (r *Repo) RunningThreads() []ThreadID {
	var out []ThreadID
	for id := range r.lockedThreads() {
		if r.threadRunning(id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
