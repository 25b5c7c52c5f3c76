package chain

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// Relative is another thread that shares history with a thread: both
// chains start with the same commits (a fork is a new ref on an existing
// step commit). Shared is how many leading commits they have in common
// (1 = only the start commit), ForkPoint the last of them.
type Relative struct {
	Thread    ThreadID
	Head      gitobj.Hash
	Shared    int
	ForkPoint gitobj.Hash
	// Parent is true when t was forked from this thread: it is older and
	// no other older relative shares more of t's history.
	Parent bool
}

// Relatives lists the threads that share history with t, oldest first.
// chainOf is t's chain (as Chain returns it). git finds the candidates in
// one walk (the thread refs whose history contains t's start commit); only
// their chains are read.
func (r *Repo) Relatives(ctx context.Context, t *Thread, chainOf []*Entry) ([]Relative, error) {
	if len(chainOf) == 0 {
		return nil, nil
	}
	raw, err := r.Git.Run(ctx, nil, "for-each-ref", "--contains", chainOf[0].Commit.String(),
		"--format=%(objectname) %(refname)", ThreadsPrefix)
	if err != nil {
		return nil, fmt.Errorf("find the threads sharing %s's history: %w", t.ID, err)
	}
	heads := map[ThreadID]gitobj.Hash{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		oid, name, ok := strings.Cut(line, " ")
		if !ok || !gitobj.IsHash(oid) {
			continue
		}
		id, err := ParseThreadID(strings.TrimPrefix(name, ThreadsPrefix))
		if err != nil {
			continue // not ours
		}
		heads[id] = gitobj.NewHash(oid)
	}
	return r.RelativesAmong(ctx, t.ID, chainOf, heads)
}

// RelativesAmong is Relatives with the candidates given: the heads of the
// threads that may share id's history (those of a listing with id's start
// commit, Summary.StartCommit). id itself and threads that share nothing
// are skipped.
func (r *Repo) RelativesAmong(ctx context.Context, id ThreadID, chainOf []*Entry, heads map[ThreadID]gitobj.Hash) ([]Relative, error) {
	if len(chainOf) == 0 {
		return nil, nil
	}
	var out []Relative
	parent := -1
	for other, head := range heads {
		if other == id {
			continue
		}
		entries, err := r.Chain(ctx, head)
		if err != nil {
			return nil, fmt.Errorf("read thread %s: %w", other, err)
		}
		n := 0
		for n < len(entries) && n < len(chainOf) && entries[n].Commit == chainOf[n].Commit {
			n++
		}
		if n == 0 {
			continue
		}
		out = append(out, Relative{Thread: other, Head: head, Shared: n, ForkPoint: chainOf[n-1].Commit})
	}
	slices.SortFunc(out, func(a, b Relative) int { return strings.Compare(string(a.Thread), string(b.Thread)) })
	for i, rel := range out {
		if rel.Thread < id && (parent < 0 || rel.Shared > out[parent].Shared) {
			parent = i
		}
	}
	if parent >= 0 {
		out[parent].Parent = true
	}
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

// Provenance says where a forked thread came from: the thread whose
// commits it starts with, and the last commit (Step, its index in the
// chain) the two share.
type Provenance struct {
	Parent ThreadID
	Step   int
	Commit gitobj.Hash
}

// ForkedFrom tells whether t is a fork and of which thread, from t's own
// history alone: walking back from the head, the first commit whose
// Uwf-Thread trailer names another thread was made by the thread t was
// forked from. When that thread is here, the fork point is the last commit
// both chains share; otherwise it is that commit. entries is t's chain. A
// thread that made all its commits itself has no provenance (nil).
func (r *Repo) ForkedFrom(ctx context.Context, t *Thread, entries []*Entry) (*Provenance, error) {
	for i := len(entries) - 1; i >= 0; i-- {
		c, err := gitobj.GetCommit(r.Store.Storer(), entries[i].Commit)
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", entries[i].Commit, err)
		}
		named := trailers(c.Message)["Uwf-Thread"]
		if named == string(t.ID) {
			continue
		}
		parent, err := ParseThreadID(named)
		if err != nil {
			return nil, nil // not a git-uwf trailer: nothing to say
		}
		p := &Provenance{Parent: parent, Step: i, Commit: entries[i].Commit}
		head, err := r.resolveRef(parent.Ref())
		if err != nil || head.IsZero() {
			return p, nil
		}
		other, err := r.Chain(ctx, head)
		if err != nil {
			return p, nil
		}
		n := 0
		for n < len(other) && n < len(entries) && other[n].Commit == entries[n].Commit {
			n++
		}
		if n > 0 {
			p.Step, p.Commit = n-1, entries[n-1].Commit
		}
		return p, nil
	}
	return nil, nil
}

// DropEntryCache forgets the thread commits decoded so far in this
// process (the files under cache/entries stay). A long-running reader that
// visits many threads (the web viewer's list pages) calls it so that its
// memory does not grow with every thread it has shown.
func (r *Repo) DropEntryCache() {
	c := &r.entries
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shards, c.starts = nil, nil
}
