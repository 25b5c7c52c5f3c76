package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/objects"
)

// The engine's half of a step, from the agent's answer to the thread ref.
// The agent's half wrote the step's nodes (agentkit.Execute,
// agentkit/step.go: extract → validate → redact → store); here the
// engine reads the answer and appends the StepNode it names, or records
// why it cannot as a failed attempt.

// appendAnswer appends the step an agent's answer names: it reads the
// AdapterOutput, finds the StepNode and hands it to chain.AppendStep,
// which verifies it (a StepNode continuing the head, for the expected
// role, with an output valid against the role's schema), writes the commit
// and moves the thread ref by compare-and-swap. runErr is the agent run's
// own failure. When the answer gives no step, a *rejection says at which
// phase and which of the agent's nodes the failed attempt must keep.
func (e *Engine) appendAnswer(ctx context.Context, t *chain.Thread, answer *Answer, runErr error, opts chain.AppendOptions) (*chain.Entry, *rejection) {
	var out *agentkit.AdapterOutput
	if answer != nil {
		out = answer.Output
	}
	switch {
	case runErr != nil:
		return nil, &rejection{phase: "agent", err: runErr, nodes: failureNodes(out)}
	case out == nil:
		return nil, &rejection{phase: "output", err: answer.NoOutput}
	case out.Error != "":
		return nil, &rejection{phase: "output", err: errors.New(out.Error), nodes: failureNodes(out)}
	}
	ref, err := out.StepRef()
	if err != nil {
		return nil, &rejection{phase: "output", err: err}
	}
	if ref.OID.IsZero() {
		n, err := e.Repo.Store.Get(ref.Alias)
		if err != nil {
			return nil, &rejection{phase: "verify", err: fmt.Errorf("step %s: %w", ref.Alias, err)}
		}
		ref.OID = n.OID
	}
	entry, err := e.Repo.AppendStep(ctx, t, ref, opts)
	if err != nil {
		// Whether the step was rejected or the ref could not be moved, the
		// agent's StepNode (and all it references) is kept in an attempt.
		phase := "verify"
		if !errors.Is(err, chain.ErrBadStep) {
			phase = "append"
		}
		return nil, &rejection{phase: phase, err: err, nodes: []objects.Alias{ref.Alias}}
	}
	return entry, nil
}

// rejection is why an agent's answer did not become a step.
type rejection struct {
	// phase is where it failed: agent (the run), output (the answer),
	// verify (the StepNode) or append (the commit or the ref update).
	phase string
	err   error
	// nodes are the agent's nodes the failed attempt keeps reachable.
	nodes []objects.Alias
}

// recordRejection records a rejected answer as a failed attempt on
// refs/uwf/attempts/<id>, with the agent's stdout and stderr (redacted),
// and returns the *StepFailedError that names it. a holds the role, the
// agent and the run's times.
func (e *Engine) recordRejection(ctx context.Context, t *chain.Thread, rej *rejection, a chain.Attempt, answer *Answer) error {
	a.Error, a.Phase, a.Nodes, a.ExitCode = rej.err.Error(), rej.phase, rej.nodes, -1
	if rej.phase == "append" && len(rej.nodes) == 1 {
		a.Step = rej.nodes[0] // valid, not appended: the next step reuses it
	}
	if answer != nil && answer.Result != nil {
		res := answer.Result
		a.Stdout, a.Stderr, a.ExitCode = string(res.Stdout), string(res.Stderr), res.ExitCode
	}
	if red := e.redactor(); red != nil {
		a.Stdout, _ = red.Redact(a.Stdout)
		a.Stderr, _ = red.Redact(a.Stderr)
		a.Error, _ = red.Redact(a.Error)
	}
	// Record with a fresh context: the step's may be cancelled, and the
	// evidence must survive an interrupt.
	recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	commit, rerr := e.Repo.RecordAttempt(recordCtx, t, a)
	fe := &StepFailedError{Thread: t.ID, Role: a.Role, Agent: a.Agent, Phase: rej.phase, Err: rej.err, Attempt: commit}
	if rerr != nil {
		return fmt.Errorf("%w (recording the failed attempt also failed: %v)", fe, rerr)
	}
	return fe
}

// failureNodes returns the nodes an agent's failed answer names: those it
// stored on the way and its StepNode, if any.
func failureNodes(out *agentkit.AdapterOutput) []objects.Alias {
	if out == nil {
		return nil
	}
	var nodes []objects.Alias
	for _, s := range append(out.Nodes, out.StepHash) {
		if a, err := objects.ParseAlias(s); err == nil {
			nodes = append(nodes, a)
		}
	}
	return nodes
}
