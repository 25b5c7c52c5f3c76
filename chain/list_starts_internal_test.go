package chain

import (
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// TestStartCommitsRecord: every commit of a recorded path finds its start,
// and a walk that began at a known commit (an empty path) adds nothing.
func TestStartCommitsRecord(t *testing.T) {
	start := startInfo{commit: gitobj.Hash{1}, branch: "main"}
	head, mid := gitobj.Hash{3}, gitobj.Hash{2}
	s := newStartCommits(4)
	s.record(start, head, mid, start.commit)
	for _, c := range []gitobj.Hash{head, mid, start.commit} {
		if got, ok := s.lookup(c); !ok || got != start {
			t.Errorf("lookup(%s) = %v, %v; want %v", c, got, ok, start)
		}
	}
	if _, ok := s.lookup(gitobj.Hash{4}); ok {
		t.Error("lookup of a commit never recorded found a start")
	}
	s.record(start)
	if len(s.starts) != 1 || len(s.of) != 3 {
		t.Errorf("after recording an empty path: %d starts, %d commits; want 1 and 3", len(s.starts), len(s.of))
	}
}
