package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/objects"
)

// reuse appends the step of a failed attempt instead of running the agent
// again, so that a step is never paid for twice: when the agent produced a
// StepNode that passed validation but the append failed (a crash, a lock
// left behind, an interrupt), the attempt keeps that StepNode, and the
// next step on the same head for the same role appends it. The step is
// validated again by AppendStep first; one that no longer validates is not
// reused (the agent runs). The caller holds the thread's lock, so two
// retries at once cannot both append it.
//
// It returns nil, nil when there is nothing to reuse.
//
// The step commit records, as Uwf-Code, the code commit of the step's
// directory now (the agent's run is over: what it ran on is not known).
func (e *Engine) reuse(ctx context.Context, t *chain.Thread, p plan, opts StepOptions) (*Result, error) {
	attempts, err := e.Repo.Attempts(ctx, t, true)
	if err != nil {
		return nil, err
	}
	var found *chain.FailedAttempt
	for i := range attempts {
		if a := &attempts[i]; !a.Step.IsZero() && a.Node.Role == p.role {
			found = a
			break
		}
	}
	if found == nil {
		return nil, nil
	}
	n, err := e.Repo.Store.GetOID(found.Step)
	if err != nil {
		return nil, nil // the node is gone: nothing to reuse
	}
	stop := func(string) {}
	if e.Progress != nil {
		stop = e.Progress(fmt.Sprintf("%s · reusing step %s of failed attempt %s (the agent is not run again; --rerun runs it)",
			p.role, n.Alias, found.Commit.String()[:12]))
	}
	code := ""
	if dir, err := e.stepDir(t, p, opts); err == nil {
		code = codeHead(ctx, dir, e.Repo.RefFiles())
	}
	entry, err := e.Repo.AppendStep(ctx, t, objects.Ref{Alias: n.Alias, OID: n.OID},
		chain.AppendOptions{ExpectedRole: p.role, ReusedAttempt: found.Commit.String(), Trailers: chain.StepCodeTrailers(code, "")})
	if errors.Is(err, chain.ErrBadStep) {
		stop("not reusable")
		return nil, nil
	}
	if err != nil {
		stop("failed")
		return nil, &StepFailedError{Thread: t.ID, Role: p.role, Agent: found.Node.Agent, Phase: "append",
			Err: fmt.Errorf("appending the step %s kept by attempt %s: %w", n.Alias, found.Commit.String()[:12], err), Attempt: found.Commit}
	}
	stop("reused")
	res, err := e.result(ctx, t, entry, found.Node.Agent)
	if err != nil {
		return nil, err
	}
	res.ReusedAttempt = found.Commit.String()
	return res, nil
}
