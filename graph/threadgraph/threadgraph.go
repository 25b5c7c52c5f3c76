// Package threadgraph draws one thread on its workflow's graph: the path
// the thread took (loops counted), what it runs next, and the threads that
// share its history. `thread graph` and the web viewer both use it.
package threadgraph

import (
	"context"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/graph"
	"github.com/git-uwf/git-uwf/moderator"
)

// Build traces t on its pinned workflow's graph. entries is t's chain (as
// chain.Repo.Chain returns it) and st its state; relatives (from
// chain.Repo.Relatives) become the graph's forks.
func Build(ctx context.Context, repo *chain.Repo, t *chain.Thread, entries []*chain.Entry, st chain.State, relatives []chain.Relative) (graph.Graph, error) {
	g := graph.Build(t.Workflow.Workflow)
	var steps []graph.Step
	for _, e := range entries {
		if e.Kind != chain.KindStep {
			continue
		}
		status, err := repo.OutputStatus(e)
		if err != nil {
			return g, err
		}
		steps = append(steps, graph.Step{Role: e.Step.Role, Status: status, Resumed: e.Step.Resumed})
	}
	var end graph.Ending
	switch st.Status {
	case chain.StatusCompleted:
		end.To = moderator.End
	case chain.StatusSuspended:
		end.To = moderator.Suspend
	default:
		end.Next = st.CurrentRole
	}
	g.Trace(steps, end)
	for _, rel := range relatives {
		at := moderator.Start
		step := rel.Shared - 1
		if step < len(entries) && entries[step].Kind == chain.KindStep {
			at = entries[step].Step.Role
		}
		relation := "fork"
		if rel.Parent {
			relation = "parent"
		}
		g.Forks = append(g.Forks, graph.Fork{Thread: string(rel.Thread), At: at, Step: step, Relation: relation})
	}
	return g, nil
}
