package chain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/oklog/ulid/v2"
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
	// Read the cache and the lock directory while the refs are listed: the
	// cache's entries are checked against the refs afterwards, so reading
	// it first can only make an entry miss, never make it stale.
	type local struct {
		cache  summaryCache
		locked map[ThreadID]bool
	}
	loaded := make(chan local, 1)
	go func() { loaded <- local{r.loadSummaries(), r.lockedThreads()} }()
	refs, err := r.ListRefs(ctx, ThreadsPrefix, AttemptsPrefix)
	l := <-loaded
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	type listed struct {
		id      ThreadID
		head    string // hex
		created time.Time
	}
	threads := make([]listed, 0, len(refs))
	var attempts map[ThreadID]string // hex; only failed threads have one
	for _, ref := range refs {
		name, isThread := strings.CutPrefix(ref.Name, ThreadsPrefix)
		if !isThread {
			name = strings.TrimPrefix(ref.Name, AttemptsPrefix)
		}
		id, created, ok := threadIDOf(name)
		if !ok || !isSHA1Hex(ref.OID) {
			continue // not ours; ignore foreign refs in the namespace
		}
		if isThread {
			threads = append(threads, listed{id, ref.OID, created})
			continue
		}
		if attempts == nil {
			attempts = map[ThreadID]string{}
		}
		attempts[id] = ref.OID
	}
	// Newest first: ULIDs sort by time. The refs come sorted by name, so
	// reversing them is usually enough.
	newestFirst := func(a, b listed) int { return strings.Compare(string(b.id), string(a.id)) }
	slices.Reverse(threads)
	if !slices.IsSortedFunc(threads, newestFirst) {
		slices.SortFunc(threads, newestFirst)
	}

	// Match the cache lines with the threads: by merging when the file is
	// newest first (as written), through a map otherwise.
	cache := l.cache
	var byID map[ThreadID]int
	if !cache.newestFirst {
		byID = make(map[ThreadID]int, len(cache.lines))
		for i, c := range cache.lines {
			byID[c.id] = i
		}
	}
	next := 0
	lineOf := func(id ThreadID) (cacheLine, bool) {
		if byID != nil {
			if i, ok := byID[id]; ok {
				return cache.lines[i], true
			}
			return cacheLine{}, false
		}
		for next < len(cache.lines) && cache.lines[next].id > id {
			next++
		}
		if next < len(cache.lines) && cache.lines[next].id == id {
			return cache.lines[next], true
		}
		return cacheLine{}, false
	}
	sums := make([]Summary, len(threads))
	lines := make([]string, len(threads)) // "" for a miss
	roles := make([]string, 0, 2*len(threads))
	hits := 0
	var misses []ThreadID
	var keys map[ThreadID]cacheKey
	missAt := map[ThreadID]int{}
	for i, t := range threads {
		if c, ok := lineOf(t.id); ok && c.head == t.head && c.attempts == attempts[t.id] {
			if c.summary(&sums[i], t.created, &roles) {
				lines[i] = c.line
				hits++
				continue
			}
		}
		if keys == nil {
			keys = map[ThreadID]cacheKey{}
		}
		key := cacheKey{head: plumbing.NewHash(t.head)}
		if a, ok := attempts[t.id]; ok {
			key.attempts = plumbing.NewHash(a)
		}
		keys[t.id] = key
		misses = append(misses, t.id)
		missAt[t.id] = i
	}
	// Rewrite the cache file only when it would change: it holds entries
	// that are no longer hits (gone or moved threads, damaged lines), or a
	// miss produced a cacheable summary. Unreadable threads are never
	// cached, so they alone do not cause a rewrite on every listing.
	changed := len(cache.lines) != hits
	if len(misses) > 0 {
		for id, c := range r.summarizeMany(ctx, misses, keys, listBatchMin) {
			i := missAt[id]
			sums[i] = c.sum
			if c.sum.Thread != "" { // "" marks a summary that must not be cached
				lines[i] = formatSummaryLine(c)
				changed = true
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if changed {
		keep := make([]string, 0, len(lines))
		for _, line := range lines {
			if line != "" {
				keep = append(keep, line)
			}
		}
		r.storeSummaries(keep)
	}
	want := map[Status]bool{}
	for _, s := range opts.Statuses {
		want[s] = true
	}
	out := sums[:0] // filtered in place
	for i, t := range threads {
		s := &sums[i]
		s.Thread = t.id
		if s.Status != StatusCompleted && (l.locked == nil || l.locked[t.id]) && r.threadRunning(t.id) {
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
		if len(out) != i {
			sums[len(out)] = *s
		}
		out = out[:len(out)+1]
	}
	return out, nil
}

// isSHA1Hex is plumbing.IsHash for what git prints (lower-case hex),
// without its decoding copy.
func isSHA1Hex(s string) bool {
	if len(s) != 2*len(plumbing.ZeroHash) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// threadIDOf parses a thread ref's last component, and returns the time
// the id encodes (its CreatedAt). Ids as git-uwf writes them (canonical
// upper-case ULIDs) are used as they are, without a copy.
func threadIDOf(name string) (ThreadID, time.Time, bool) {
	if len(name) == 26 && !strings.ContainsFunc(name, func(c rune) bool { return 'a' <= c && c <= 'z' }) {
		u, err := ulid.ParseStrict(name)
		if err != nil {
			return "", time.Time{}, false
		}
		return ThreadID(name), ulid.Time(u.Time()).UTC(), true
	}
	id, err := ParseThreadID(name)
	if err != nil {
		return "", time.Time{}, false
	}
	return id, id.Time().UTC(), true
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
	var ge *gitrepo.GitError
	if errors.As(err, &ge) && ge.ExitCode == 1 {
		return false, nil
	}
	return false, err
}
