package uwfsync

import (
	"context"
	"fmt"
	"slices"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// validateThread checks that tip is a well-formed thread: one root holding a
// StartNode, one parent per later commit, each StepNode or CancelNode
// belonging to that start and continuing the commit before it, a cancel
// only at the end, every Uwf-Start trailer naming the real start commit
// and its branch (chain.CheckStartTrailer), every Uwf-Next trailer saying
// what routing its commit gives (chain.NextClaims), and a readable pinned
// workflow. It returns the reason it is not, or "" and the thread's
// commits from the start to tip.
func validateThread(ctx context.Context, repo *chain.Repo, id chain.ThreadID, tip gitobj.Hash) (string, []*chain.Entry, error) {
	entries, err := walkFetched(ctx, repo, tip)
	if err != nil {
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		return err.Error(), nil, nil
	}
	s := repo.Store.Storer()
	start := entries[0].Node.Alias
	var prev *objects.Alias
	var rootMsg string
	claims := repo.NextClaims(id, entries[0].Commit)
	for i, e := range entries {
		c, err := gitobj.GetCommit(s, e.Commit)
		if err != nil {
			return fmt.Sprintf("read commit %s: %v", e.Commit, err), nil, nil
		}
		switch {
		case i == 0 && len(c.ParentHashes) != 0:
			return fmt.Sprintf("the StartNode commit %s has parents: a thread has one root", e.Commit), nil, nil
		case i > 0 && len(c.ParentHashes) != 1:
			return fmt.Sprintf("commit %s has %d parents: a thread is a single line", e.Commit, len(c.ParentHashes)), nil, nil
		case i > 0 && e.Kind == chain.KindStart:
			return fmt.Sprintf("commit %s holds a second StartNode", e.Commit), nil, nil
		case i > 0 && entries[i-1].Kind == chain.KindCancel:
			return fmt.Sprintf("commit %s follows the cancel commit %s", e.Commit, entries[i-1].Commit), nil, nil
		}
		if i == 0 {
			rootMsg = c.Message
		} else if err := chain.CheckStartTrailer(c.Message, entries[0].Commit, rootMsg); err != nil {
			return fmt.Sprintf("commit %s: %v", e.Commit, err), nil, nil
		}
		if err := claims.Check(ctx, e, c.Message); err != nil {
			if ctx.Err() != nil {
				return "", nil, ctx.Err()
			}
			return fmt.Sprintf("commit %s: %v", e.Commit, err), nil, nil
		}
		var gotStart objects.Alias
		var gotPrev *objects.Alias
		switch e.Kind {
		case chain.KindStep:
			gotStart, gotPrev = e.Step.Start, e.Step.Prev
		case chain.KindCancel:
			gotStart, gotPrev = e.Cancel.Start, e.Cancel.Prev
		default:
			continue
		}
		if gotStart != start {
			return fmt.Sprintf("commit %s belongs to start %s, not %s", e.Commit, gotStart, start), nil, nil
		}
		if !sameAlias(gotPrev, prev) {
			return fmt.Sprintf("commit %s continues %s, but its parent holds %s", e.Commit, aliasString(gotPrev), aliasString(prev)), nil, nil
		}
		if e.Kind == chain.KindStep {
			a := e.Node.Alias
			prev = &a
		}
	}
	if _, err := repo.ThreadAt(ctx, id, tip); err != nil {
		return err.Error(), nil, nil
	}
	return "", entries, nil
}

// walkFetched returns the entries of the thread commits from the root to
// tip, each read from git (Repo.Entry: the commit, its tree and its node,
// decoded and checked), as Repo.Chain would. It does not use or fill the
// entry cache: a fetch reads each of thousands of new threads once, so
// writing a cache file per thread there cost more than it saved (about a
// tenth of a fetch's CPU), and later reads fill it when they need it.
func walkFetched(ctx context.Context, repo *chain.Repo, tip gitobj.Hash) ([]*chain.Entry, error) {
	var rev []*chain.Entry
	for c := tip; !c.IsZero(); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, err := repo.Entry(ctx, c)
		if err != nil {
			return nil, err
		}
		rev = append(rev, e)
		if e.Kind == chain.KindStart {
			break
		}
		c = e.Parent
	}
	if len(rev) == 0 || rev[len(rev)-1].Kind != chain.KindStart {
		return nil, fmt.Errorf("chain at %s does not start with a StartNode", tip)
	}
	slices.Reverse(rev)
	return rev, nil
}

// validateWorkflow checks that tip is a registry commit pinning a readable
// workflow.
func validateWorkflow(ctx context.Context, repo *chain.Repo, tip gitobj.Hash) (string, error) {
	if _, err := repo.WorkflowAt(ctx, tip); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return err.Error(), nil
	}
	return "", nil
}

// validateAttempts checks that tip looks like an attempts log entry: a
// commit with one or two parents (the thread head, the previous attempt)
// whose tree holds a FailedAttempt node.
func validateAttempts(repo *chain.Repo, tip gitobj.Hash) (string, error) {
	c, err := gitobj.GetCommit(repo.Store.Storer(), tip)
	if err != nil {
		return fmt.Sprintf("read commit %s: %v", tip, err), nil
	}
	if n := len(c.ParentHashes); n < 1 || n > 2 {
		return fmt.Sprintf("commit %s has %d parents: an attempt has the thread head and the previous attempt", tip, n), nil
	}
	tree, err := gitobj.GetTree(repo.Store.Storer(), c.TreeHash)
	if err != nil {
		return fmt.Sprintf("read tree of %s: %v", tip, err), nil
	}
	e, ok := tree.Entry("node")
	if !ok {
		return fmt.Sprintf("commit %s is not a git-uwf attempt (no node in its tree)", tip), nil
	}
	n, err := repo.Store.GetOID(e.Hash)
	if err != nil {
		return fmt.Sprintf("commit %s: %v", tip, err), nil
	}
	want, err := repo.Schema("uwf.FailedAttempt")
	if err != nil {
		return "", err
	}
	if n.Type != want {
		return fmt.Sprintf("commit %s holds node %s, not a failed attempt", tip, n.Alias), nil
	}
	return "", nil
}

func sameAlias(a, b *objects.Alias) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func aliasString(a *objects.Alias) string {
	if a == nil {
		return "the start"
	}
	return string(*a)
}
