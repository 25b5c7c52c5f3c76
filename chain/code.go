package chain

import (
	"context"
	"fmt"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// Trailers that tie threads and steps to the code they ran on. They are
// commit trailers, not node fields, so the built-in node schemas (and
// their aliases) stay as they are.
const (
	// BranchTrailer names the branch the thread was started on (root commit).
	BranchTrailer = "Uwf-Branch"
	// CodeTrailer is the code commit: the work tree's HEAD when the thread
	// started (root commit), or before the agent ran (step commit).
	CodeTrailer = "Uwf-Code"
	// CodeAfterTrailer is the HEAD after the agent, when it moved.
	CodeAfterTrailer = "Uwf-Code-After"
)

// Code is the branch and commit of a work tree.
type Code struct {
	Branch string `json:"branch,omitempty"`
	Commit string `json:"commit,omitempty"`
}

func (c Code) trailers() []Trailer {
	var ts []Trailer
	if c.Branch != "" {
		ts = append(ts, Trailer{BranchTrailer, c.Branch})
	}
	if c.Commit != "" {
		ts = append(ts, Trailer{CodeTrailer, c.Commit})
	}
	return ts
}

// StepCodeTrailers are the trailers of a step that ran with HEAD at
// before and left it at after.
func StepCodeTrailers(before, after string) []Trailer {
	var ts []Trailer
	if before != "" {
		ts = append(ts, Trailer{CodeTrailer, before})
	}
	if after != "" && after != before {
		ts = append(ts, Trailer{CodeAfterTrailer, after})
	}
	return ts
}

// StartCode returns the branch and commit a thread was started on, read
// from the trailers of its root commit (zero for threads started before
// they were recorded). A fork shares the root, so it reports its origin's.
func (r *Repo) StartCode(ctx context.Context, t *Thread) (Code, error) {
	_, root, err := r.rootCommit(ctx, t.Head.Commit)
	if err != nil {
		return Code{}, fmt.Errorf("thread %s: %w", t.ID, err)
	}
	tr := trailers(root.Message)
	return Code{Branch: tr[BranchTrailer], Commit: tr[CodeTrailer]}, nil
}

// StepCode returns the code commits a step commit records: HEAD before
// the agent and, when it moved, after.
func (r *Repo) StepCode(commit gitobj.Hash) (before, after string, err error) {
	c, err := gitobj.GetCommit(r.Store.Storer(), commit)
	if err != nil {
		return "", "", fmt.Errorf("read commit %s: %w", commit, err)
	}
	tr := trailers(c.Message)
	return tr[CodeTrailer], tr[CodeAfterTrailer], nil
}
