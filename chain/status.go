package chain

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/moderator"
)

// Status is a thread's derived state.
type Status string

// Thread states. Only "running" looks outside git (at the step lock).
const (
	StatusIdle      Status = "idle"
	StatusRunning   Status = "running"
	StatusSuspended Status = "suspended"
	StatusCompleted Status = "completed"
	StatusCancelled Status = "cancelled"
	StatusFailed    Status = "failed"
)

// StatusEnd is upstream uwf's name for a completed thread; ParseStatus
// reads it as StatusCompleted.
const StatusEnd = "end"

// ParseStatus validates a status name. "end" (upstream uwf's name) is
// read as completed.
func ParseStatus(s string) (Status, error) {
	switch st := Status(s); st {
	case StatusIdle, StatusRunning, StatusSuspended, StatusCompleted, StatusCancelled, StatusFailed:
		return st, nil
	case StatusEnd:
		return StatusCompleted, nil
	}
	return "", fmt.Errorf("unknown status %q (want idle, running, suspended, completed (or end), cancelled or failed)", s)
}

// State is what the moderator makes of a thread's head.
type State struct {
	Status Status
	// Next is the moderator's decision on the head (zero when cancelled or
	// when routing failed).
	Next moderator.Decision
	// CurrentRole is the role the next step will run ("" unless idle,
	// running or failed, or suspended waiting for a child).
	CurrentRole    string
	SuspendedRole  string
	SuspendMessage string
	// SuspendedChild is the suspended child thread this thread waits for:
	// its current role is played by a workflow, and the child thread
	// playing it is suspended. The thread is then suspended too, at that
	// role (SuspendedRole and CurrentRole), with the child's question as
	// SuspendMessage; resuming it resumes the child.
	SuspendedChild ThreadID
	// Error explains a failed state: a routing error or the last failed attempt.
	Error string
}

// RouteContext assembles what the moderator routes on. For status-map
// workflows only the head step matters, so only it is read; conditions see
// the whole chain.
func (r *Repo) RouteContext(ctx context.Context, t *Thread) (moderator.RouteContext, error) {
	rc := moderator.RouteContext{Start: moderator.StartView{Workflow: t.Workflow.Name, Prompt: t.Start.Prompt}}
	var entries []*Entry
	if t.Workflow.Workflow.Form == moderator.Transitions {
		chain, err := r.Chain(ctx, t.Head.Commit)
		if err != nil {
			return rc, err
		}
		entries = chain
	} else if t.Head.Kind == KindStep {
		entries = []*Entry{t.Head}
	}
	for _, e := range entries {
		if e.Kind != KindStep {
			continue
		}
		out, err := r.Output(e)
		if err != nil {
			return rc, err
		}
		rc.Steps = append(rc.Steps, moderator.StepView{Role: e.Step.Role, Output: out, Agent: e.Step.Agent, EdgePrompt: e.Step.EdgePrompt})
	}
	// Version 1 templates may read the last step's body as _body.
	if n := len(rc.Steps); n > 0 && t.Workflow.Workflow.UsesBody() {
		last := entries[len(entries)-1]
		if last.Kind == KindStep && last.Step.Body != "" {
			body, err := r.Text(last, last.Step.Body)
			if err != nil {
				return rc, fmt.Errorf("body of step %s: %w", last.Node.Alias, err)
			}
			rc.Steps[n-1].Body = body
		}
	}
	return rc, nil
}

// State derives the thread's status from its head (and, for a thread
// whose current role is played by a workflow, from the child thread
// playing it: see waitOnChild).
func (r *Repo) State(ctx context.Context, t *Thread) (State, error) {
	return r.state(ctx, t, 0)
}

// state is State for a thread depth levels of children below the thread
// asked about.
func (r *Repo) state(ctx context.Context, t *Thread, depth int) (State, error) {
	tip, err := r.resolveRef(t.ID.AttemptsRef())
	if err != nil {
		return State{}, err
	}
	st, err := r.headState(ctx, t, tip)
	if err != nil {
		return State{}, err
	}
	if err := r.waitOnChild(ctx, t, &st, depth); err != nil {
		return State{}, err
	}
	if st.Status != StatusCompleted && r.threadRunning(t.ID) {
		st.Status = StatusRunning
	}
	return st, nil
}

// headState is State without the running overlay: a function of the head
// commit and the attempts ref's tip (zero when there is none) alone.
func (r *Repo) headState(ctx context.Context, t *Thread, attemptsTip gitobj.Hash) (State, error) {
	if t.Head.Kind == KindCancel {
		return State{Status: StatusCancelled}, nil
	}
	rc, err := r.RouteContext(ctx, t)
	if err != nil {
		return State{}, err
	}
	return r.routedState(t, rc, attemptsTip), nil
}

// routedState is headState for a thread that is not cancelled, given what
// the moderator routes on.
func (r *Repo) routedState(t *Thread, rc moderator.RouteContext, attemptsTip gitobj.Hash) State {
	d, err := t.Workflow.Workflow.Route(rc)
	if err != nil {
		return State{Status: StatusFailed, Error: err.Error()}
	}
	return r.withAttempts(t, decisionState(d), attemptsTip)
}

// decisionState is the state a routing decision gives a thread before its
// failed attempts are looked at.
func decisionState(d moderator.Decision) State {
	st := State{Next: d}
	switch d.Kind {
	case moderator.Finish:
		st.Status = StatusCompleted
	case moderator.Pause:
		st.Status = StatusSuspended
		st.SuspendedRole = d.From
		st.SuspendMessage = d.Prompt
	default:
		st.Status = StatusIdle
		st.CurrentRole = d.Role
	}
	return st
}

// withAttempts is st, failed when st is idle and the attempts log at
// attemptsTip holds a failed attempt at t's head.
func (r *Repo) withAttempts(t *Thread, st State, attemptsTip gitobj.Hash) State {
	if st.Status != StatusIdle {
		return st
	}
	if attempts, err := r.attemptsFrom(t, attemptsTip, true); err == nil && len(attempts) > 0 {
		st.Status = StatusFailed
		st.Error = attempts[0].Node.Error
	}
	return st
}

// StepInfo is one entry of `thread steps`.
type StepInfo struct {
	Index      int            `json:"index"`
	Kind       EntryKind      `json:"kind"`
	Hash       string         `json:"hash"`
	Commit     string         `json:"commit"`
	Role       string         `json:"role,omitempty"`
	Status     string         `json:"status,omitempty"`
	Output     map[string]any `json:"output,omitempty"`
	Agent      string         `json:"agent,omitempty"`
	EdgePrompt string         `json:"edgePrompt,omitempty"`
	Prompt     string         `json:"prompt,omitempty"`
	Workflow   string         `json:"workflow,omitempty"`
	DurationMs int64          `json:"durationMs,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Timestamp  time.Time      `json:"timestamp"`
}

// Steps lists the chain from the start to the head.
func (r *Repo) Steps(ctx context.Context, t *Thread) ([]StepInfo, error) {
	// The outputs are decoded while the entry cache is written.
	chain, cached, err := r.chainCaching(ctx, t.Head.Commit, true)
	defer cached()
	if err != nil {
		return nil, err
	}
	out := make([]StepInfo, 0, len(chain))
	for i, e := range chain {
		si := StepInfo{Index: i, Kind: e.Kind, Hash: string(e.Node.Alias), Commit: e.Commit.String(), Timestamp: e.Time.UTC()}
		switch e.Kind {
		case KindStart:
			si.Prompt = e.Start.Prompt
			si.Workflow = string(e.Start.Workflow)
		case KindStep:
			si.Role, si.Agent, si.EdgePrompt = e.Step.Role, e.Step.Agent, e.Step.EdgePrompt
			si.DurationMs = e.Step.CompletedAtMs - e.Step.StartedAtMs
			if si.Output, err = r.Output(e); err != nil {
				return nil, err
			}
			si.Status, _ = si.Output["$status"].(string)
		case KindCancel:
			si.Reason = e.Cancel.Reason
			si.Status = "cancelled"
		}
		out = append(out, si)
	}
	return out, nil
}

// IsAncestor reports whether a is an ancestor of (or equal to) b.
func (r *Repo) IsAncestor(ctx context.Context, a, b gitobj.Hash) (bool, error) {
	if a == b {
		return true, nil
	}
	_, err := r.Git.Run(ctx, nil, "merge-base", "--is-ancestor", a.String(), b.String())
	if err == nil {
		return true, nil
	}
	var ge *gitrepo.GitError
	if errors.As(err, &ge) && ge.ExitCode == 1 {
		return false, nil
	}
	return false, err
}
