package chain

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// The start commit of each listed thread, for the summary's StartCommit,
// Branch and Fork. Not a cache: it lives for one listing, and what it is
// seeded with comes from the summary cache's lines, which are checked
// against the refs like the rest of the cache.

// A thread's chain is linear down to its start commit (the root reached
// through first parents), and a fork is a new ref on a commit of another
// thread's chain, so two threads share history exactly when they have the
// same start commit. The start commit's Uwf-Branch trailer names the branch
// the thread was started on (StartCode). Step and cancel commits name both
// in their Uwf-Start trailer (start_trailer.go), so a walk stops at the
// first commit that has one: only chains written before the trailer are
// walked to their root.

// startInfo is a start commit and the branch its trailer names.
type startInfo struct {
	commit gitobj.Hash
	branch string
}

// startCommits remembers, during one listing, the start commit of every
// commit whose chain was walked, so that walks stop at a commit seen before
// (a thread's previous head, a fork point).
type startCommits struct {
	of map[gitobj.Hash]int32 // commit → index in starts
	// starts holds a start once per record: a start recorded again (a
	// fork's) costs a slice entry rather than a map of the starts seen, a
	// lookup and an insert per walk.
	starts []startInfo
}

// newStartCommits makes room for about n commits.
func newStartCommits(n int) *startCommits {
	return &startCommits{of: make(map[gitobj.Hash]int32, n), starts: make([]startInfo, 0, n/2)}
}

// lookup returns the start of the chain that c is on, if known.
func (s *startCommits) lookup(c gitobj.Hash) (startInfo, bool) {
	i, ok := s.of[c]
	if !ok {
		return startInfo{}, false
	}
	return s.starts[i], true
}

// record notes that every commit of path has start as its start commit.
// An empty path (a walk that began at a commit already known) records
// nothing.
func (s *startCommits) record(start startInfo, path ...gitobj.Hash) {
	if len(path) == 0 {
		return
	}
	i := int32(len(s.starts))
	s.starts = append(s.starts, start)
	for _, c := range path {
		s.of[c] = i
	}
}

// walkToStart finds the start commit of head's chain in the object store,
// walking first parents until a parentless commit, one s knows or one
// with an Uwf-Start trailer (start_trailer.go), and records what it
// walked.
func (r *Repo) walkToStart(ctx context.Context, head gitobj.Hash, s *startCommits) (startInfo, error) {
	var path []gitobj.Hash
	for c := head; ; {
		if st, ok := s.lookup(c); ok {
			s.record(st, path...)
			return st, nil
		}
		if err := ctx.Err(); err != nil {
			return startInfo{}, err
		}
		commit, err := gitobj.GetCommit(r.Store.Storer(), c)
		if err != nil {
			return startInfo{}, fmt.Errorf("find the start commit of %s: read commit %s: %w", head, c, err)
		}
		if !strings.Contains(commit.Message, "\n"+threadTrailer+": ") {
			// Not a thread's commit: a ref that is no thread must not
			// cost a walk of the code history below it.
			return startInfo{}, fmt.Errorf("find the start commit of %s: commit %s has no %s trailer", head, c, threadTrailer)
		}
		path = append(path, c)
		if len(commit.ParentHashes) == 0 {
			st := startInfo{commit: c, branch: trailerValue(commit.Message, BranchTrailer)}
			s.record(st, path...)
			return st, nil
		}
		if st, ok := claimedStart(commit.Message); ok && st.commit != c {
			s.record(st, path...)
			return st, nil
		}
		c = commit.ParentHashes[0]
	}
}
