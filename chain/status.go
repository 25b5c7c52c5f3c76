package chain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
	tip, err := r.resolveRef(t.ID.AttemptsRef())
	if err != nil {
		return State{}, err
	}
	st, err := r.headState(ctx, t, tip)
	if err != nil {
		return State{}, err
	}
	if st.Status != StatusCompleted && r.threadRunning(t.ID) {
		st.Status = StatusRunning
	}
	return st, nil
}

// headState is State without the running overlay: a function of the head
// commit and the attempts ref's tip (zero when there is none) alone.
func (r *Repo) headState(ctx context.Context, t *Thread, attemptsTip plumbing.Hash) (State, error) {
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
func (r *Repo) routedState(t *Thread, rc moderator.RouteContext, attemptsTip plumbing.Hash) State {
	d, err := t.Workflow.Workflow.Route(rc)
	if err != nil {
		return State{Status: StatusFailed, Error: err.Error()}
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
		if attempts, err := r.attemptsFrom(t, attemptsTip, true); err == nil && len(attempts) > 0 {
			st.Status = StatusFailed
			st.Error = attempts[0].Node.Error
		}
	}
	return st
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

func summaryOf(t *Thread, st State) Summary {
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
	return s
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
//
// Summaries come from the summary cache (see cache.go) when the thread's
// head and attempts tip are those the entry was derived from; the others
// are derived and the cache is rewritten. "running" always comes from the
// lock files.
func (r *Repo) List(ctx context.Context, opts ListOptions) ([]Summary, error) {
	// Read the cache and the lock directory while git lists the refs: the
	// cache's entries are checked against the refs afterwards, so reading
	// it first can only make an entry miss, never make it stale.
	type local struct {
		cache  map[ThreadID]cachedSummary
		locked map[ThreadID]bool
	}
	loaded := make(chan local, 1)
	go func() { loaded <- local{r.loadSummaries(), r.lockedThreads()} }()
	refs, err := r.Git.ForEachRef(ctx, ThreadsPrefix, AttemptsPrefix)
	l := <-loaded
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	var ids []ThreadID
	heads := map[ThreadID]plumbing.Hash{}
	attempts := map[ThreadID]plumbing.Hash{}
	for _, ref := range refs {
		isThread := strings.HasPrefix(ref.Name, ThreadsPrefix)
		prefix, into := AttemptsPrefix, attempts
		if isThread {
			prefix, into = ThreadsPrefix, heads
		}
		id, err := ParseThreadID(strings.TrimPrefix(ref.Name, prefix))
		if err != nil || !plumbing.IsHash(ref.OID) {
			continue // not ours; ignore foreign refs in the namespace
		}
		if isThread {
			ids = append(ids, id)
		}
		into[id] = plumbing.NewHash(ref.OID)
	}
	want := map[Status]bool{}
	for _, s := range opts.Statuses {
		want[s] = true
	}
	// Newest first: ULIDs sort by time.
	slices.SortFunc(ids, func(a, b ThreadID) int { return strings.Compare(string(b), string(a)) })
	cache, locked := l.cache, l.locked
	keep := make([]cachedSummary, 0, len(ids))
	keys := make(map[ThreadID]cacheKey, len(ids))
	var misses []ThreadID
	for _, id := range ids {
		key := cacheKey{head: heads[id], attempts: attempts[id]}
		keys[id] = key
		if c, hit := cache[id]; !hit || c.key != key {
			misses = append(misses, id)
		}
	}
	// Rewrite the cache file only when it would change: it holds entries
	// that are no longer hits (gone or moved threads), or a miss produced a
	// cacheable summary. Unreadable threads are never cached, so they alone
	// do not cause a rewrite on every listing.
	changed := len(cache) != len(ids)-len(misses)
	if len(misses) > 0 {
		for id, c := range r.summarizeMany(ctx, misses, keys, listBatchMin) {
			cache[id] = c
			if c.sum.Thread != "" {
				changed = true
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	out := make([]Summary, 0, len(ids))
	for _, id := range ids {
		c := cache[id]
		if c.sum.Thread != "" { // "" marks a summary that must not be cached
			keep = append(keep, c)
		}
		s := c.sum
		s.Thread = id
		if s.Status != StatusCompleted && (locked == nil || locked[id]) && r.threadRunning(id) {
			s.Status = StatusRunning
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
	if changed {
		r.storeSummaries(keep)
	}
	return out, nil
}

// summarizeHead derives a thread's summary, without the running overlay.
// A thread that cannot be read gets a failed summary that is not cached
// (its Thread is left empty): the objects may arrive later.
func (r *Repo) summarizeHead(ctx context.Context, id ThreadID, key cacheKey) cachedSummary {
	t, err := r.ThreadAt(ctx, id, key.head)
	var st State
	if err == nil {
		st, err = r.headState(ctx, t, key.attempts)
	}
	if err != nil {
		return cachedSummary{key: key, sum: Summary{HeadCommit: key.head.String(), Status: StatusFailed, Error: err.Error(), CreatedAt: id.Time().UTC()}}
	}
	return cachedSummary{key: key, sum: summaryOf(t, st)}
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
