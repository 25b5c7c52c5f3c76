package chain

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/git-uwf/git-uwf/internal/gitcli"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/go-git/go-git/v5/plumbing"
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

// ParseStatus validates a status name.
func ParseStatus(s string) (Status, error) {
	switch st := Status(s); st {
	case StatusIdle, StatusRunning, StatusSuspended, StatusCompleted, StatusCancelled, StatusFailed:
		return st, nil
	}
	return "", fmt.Errorf("unknown status %q (want idle, running, suspended, completed, cancelled or failed)", s)
}

// State is what the moderator makes of a thread's head.
type State struct {
	Status Status
	// Next is the moderator's decision on the head (zero when cancelled or
	// when routing failed).
	Next moderator.Decision
	// CurrentRole is the role the next step will run ("" unless idle,
	// running or failed).
	CurrentRole    string
	SuspendedRole  string
	SuspendMessage string
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
	return rc, nil
}

// State derives the thread's status from its head.
func (r *Repo) State(ctx context.Context, t *Thread) (State, error) {
	if t.Head.Kind == KindCancel {
		return State{Status: StatusCancelled}, nil
	}
	rc, err := r.RouteContext(ctx, t)
	if err != nil {
		return State{}, err
	}
	d, err := t.Workflow.Workflow.Route(rc)
	if err != nil {
		return State{Status: StatusFailed, Error: err.Error()}, nil
	}
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
		if attempts, err := r.Attempts(ctx, t, true); err == nil && len(attempts) > 0 {
			st.Status = StatusFailed
			st.Error = attempts[0].Node.Error
		}
	}
	if st.Status != StatusCompleted && r.threadRunning(t.ID) {
		st.Status = StatusRunning
	}
	return st, nil
}

// Summary is one line of `thread list`.
type Summary struct {
	Thread        ThreadID  `json:"thread"`
	Workflow      string    `json:"workflow"`
	WorkflowHash  string    `json:"workflowHash"`
	Head          string    `json:"head"`
	HeadCommit    string    `json:"headCommit"`
	Status        Status    `json:"status"`
	CurrentRole   *string   `json:"currentRole"`
	SuspendedRole *string   `json:"suspendedRole,omitempty"`
	Prompt        string    `json:"prompt"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	Error         string    `json:"error,omitempty"`
}

// Summarize derives a thread's list entry.
func (r *Repo) Summarize(ctx context.Context, t *Thread) (Summary, error) {
	st, err := r.State(ctx, t)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Thread: t.ID, Workflow: t.Workflow.Name, WorkflowHash: string(t.Workflow.Alias),
		Head: string(t.Head.Node.Alias), HeadCommit: t.Head.Commit.String(), Status: st.Status,
		Prompt: t.Start.Prompt, CreatedAt: t.ID.Time().UTC(), UpdatedAt: t.Head.Time.UTC(), Error: st.Error}
	if st.CurrentRole != "" {
		role := st.CurrentRole
		s.CurrentRole = &role
	}
	if st.SuspendedRole != "" {
		role := st.SuspendedRole
		s.SuspendedRole = &role
	}
	return s, nil
}

// ListOptions filter List.
type ListOptions struct {
	// All includes completed and cancelled threads.
	All bool
	// Statuses keeps only these states (overrides All).
	Statuses []Status
}

// List summarizes threads, newest first. A thread that cannot be read is
// reported with status "failed" rather than aborting the listing.
func (r *Repo) List(ctx context.Context, opts ListOptions) ([]Summary, error) {
	ids, heads, err := r.ThreadIDs(ctx)
	if err != nil {
		return nil, err
	}
	want := map[Status]bool{}
	for _, s := range opts.Statuses {
		want[s] = true
	}
	var out []Summary
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var s Summary
		t, err := r.ThreadAt(ctx, id, heads[id])
		if err == nil {
			s, err = r.Summarize(ctx, t)
		}
		if err != nil {
			s = Summary{Thread: id, HeadCommit: heads[id].String(), Status: StatusFailed, Error: err.Error(), CreatedAt: id.Time().UTC()}
		}
		switch {
		case len(want) > 0:
			if !want[s.Status] {
				continue
			}
		case !opts.All:
			if s.Status == StatusCompleted || s.Status == StatusCancelled {
				continue
			}
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Thread > out[j].Thread })
	return out, nil
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
	chain, err := r.Chain(ctx, t.Head.Commit)
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
func (r *Repo) IsAncestor(ctx context.Context, a, b plumbing.Hash) (bool, error) {
	if a == b {
		return true, nil
	}
	_, err := r.Git.Run(ctx, nil, "merge-base", "--is-ancestor", a.String(), b.String())
	if err == nil {
		return true, nil
	}
	var ge *gitcli.GitError
	if errors.As(err, &ge) && ge.ExitCode == 1 {
		return false, nil
	}
	return false, err
}
