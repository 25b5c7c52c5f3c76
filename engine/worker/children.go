package worker

import (
	"context"
	"fmt"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// childRefspecs returns the refspecs that push, with a step, the child
// threads that played its roles: those named by the steps after base up to
// head, and, through their chains, their own children. They are pushed as
// any new ref is (created or fast-forwarded, never forced), in the step's
// atomic push.
func (w *Worker) childRefspecs(ctx context.Context, base, head string) ([]string, error) {
	cs := w.newChildSpecs()
	for c := gitobj.NewHash(head); c.String() != base && !c.IsZero(); {
		e, err := w.Repo.Entry(ctx, c)
		if err != nil {
			return nil, err
		}
		if e.Step != nil && e.Step.Child != "" {
			if err := cs.add(ctx, e.Step.Child); err != nil {
				return nil, err
			}
		}
		c = e.Parent
	}
	return cs.specs, nil
}

// childSpecs gathers the refspecs that push child threads at their local
// heads.
type childSpecs struct {
	repo  *chain.Repo
	seen  map[chain.ThreadID]bool
	ids   []chain.ThreadID
	specs []string
}

func (w *Worker) newChildSpecs() *childSpecs {
	return &childSpecs{repo: w.Repo, seen: map[chain.ThreadID]bool{}}
}

// add adds the child thread id, the children its steps name and the child
// playing its current role (one it is still running), and theirs.
func (cs *childSpecs) add(ctx context.Context, id chain.ThreadID) error {
	if cs.seen[id] {
		return nil
	}
	cs.seen[id] = true
	t, err := cs.repo.Thread(ctx, id)
	if err != nil {
		return fmt.Errorf("child thread %s: %w", id, err)
	}
	cs.ids = append(cs.ids, id)
	cs.specs = append(cs.specs, t.Head.Commit.String()+":"+id.Ref())
	kids, err := cs.repo.Children(ctx, t)
	if err != nil {
		return fmt.Errorf("child thread %s: %w", id, err)
	}
	active, err := cs.repo.ActiveChild(ctx, t)
	if err != nil {
		return fmt.Errorf("child thread %s: %w", id, err)
	}
	if active != nil {
		kids = append(kids, active.ID)
	}
	for _, k := range kids {
		if err := cs.add(ctx, k); err != nil {
			return err
		}
	}
	return nil
}
