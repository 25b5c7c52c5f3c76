package chain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// Listing threads (`thread list`): one Summary per thread, taken from the
// summary cache (cache_summary.go) when its key still matches, derived
// otherwise, in a batch (list_batch.go) when there are many.

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
	// Branch is the branch the thread was started on: the Uwf-Branch
	// trailer of its start commit ("" when not recorded). A fork shares
	// its origin's start commit, and so its branch.
	Branch string `json:"branch,omitempty"`
	// StartCommit is the root of the thread's chain, its start commit,
	// reached from the head through first parents ("" when the chain
	// cannot be read).
	StartCommit string `json:"rootCommit,omitempty"`
	// Fork is true when another thread has the same start commit: the
	// thread was forked (git uwf thread fork, or sync of diverged
	// histories) or was forked from.
	Fork bool `json:"fork"`

	// SuspendedChild is the suspended child thread this thread waits for
	// (see State.SuspendedChild).
	SuspendedChild *ThreadID `json:"suspendedChild,omitempty"`
}

func summaryOf(t *Thread, st State, start startInfo) Summary {
	s := Summary{Thread: t.ID, Workflow: t.Workflow.Name, WorkflowHash: string(t.Workflow.Alias),
		Head: string(t.Head.Node.Alias), HeadCommit: t.Head.Commit.String(), Status: st.Status,
		Prompt: t.Start.Prompt, CreatedAt: t.ID.Time().UTC(), UpdatedAt: t.Head.Time.UTC(), Error: st.Error,
		Branch: start.branch}
	if !start.commit.IsZero() {
		s.StartCommit = start.commit.String()
	}
	if st.CurrentRole != "" {
		role := st.CurrentRole
		s.CurrentRole = &role
	}
	if st.SuspendedRole != "" {
		role := st.SuspendedRole
		s.SuspendedRole = &role
	}
	if st.SuspendedChild != "" {
		child := st.SuspendedChild
		s.SuspendedChild = &child
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
// Summaries come from the summary cache (see cache_summary.go) when the thread's
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
	// The threads to derive, their keys and their places in threads.
	var (
		misses []ThreadID
		keys   []cacheKey
		missAt []int
	)
	var previous []cacheLine // the cache's lines for moved threads
	for i, t := range threads {
		c, found := lineOf(t.id)
		if found && c.head == t.head && c.attempts == attempts[t.id] {
			if c.summary(&sums[i], t.created, &roles) {
				lines[i] = c.line
				hits++
				continue
			}
		}
		if misses == nil {
			misses = make([]ThreadID, 0, len(threads)-i)
			keys = make([]cacheKey, 0, len(threads)-i)
			missAt = make([]int, 0, len(threads)-i)
		}
		if found {
			previous = append(previous, c)
		}
		key := cacheKey{head: gitobj.NewHash(t.head)}
		if a, ok := attempts[t.id]; ok {
			key.attempts = gitobj.NewHash(a)
		}
		keys = append(keys, key)
		misses = append(misses, t.id)
		missAt = append(missAt, i)
	}
	// Rewrite the cache file only when it would change: it holds entries
	// that are no longer hits (gone or moved threads, damaged lines), or a
	// miss produced a cacheable summary. Unreadable threads are never
	// cached, so they alone do not cause a rewrite on every listing.
	changed := len(cache.lines) != hits
	if len(misses) > 0 {
		// A walk to a start commit reads about one commit per miss, and
		// stops at a thread's previous head when the cache has it
		// (usually the new head's parent).
		starts := newStartCommits(2 * len(misses))
		for _, c := range previous {
			starts.record(startInfo{commit: gitobj.NewHash(c.start), branch: c.branch()}, gitobj.NewHash(c.head))
		}
		r.summarizeMany(ctx, misses, keys, starts, listBatchMin, func(m int, c cachedSummary) {
			i := missAt[m]
			sums[i] = c.sum
			if c.sum.Thread != "" { // "" marks a summary that must not be cached
				lines[i] = formatSummaryLine(c)
				changed = true
			}
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if changed {
		r.storeSummaries(lines)
	}
	markForks(sums)
	want := map[Status]bool{}
	for _, s := range opts.Statuses {
		want[s] = true
	}
	for i, t := range threads {
		s := &sums[i]
		s.Thread = t.id
		if s.Status != StatusCompleted && (l.locked == nil || l.locked[t.id]) && r.threadRunning(t.id) {
			s.Status = StatusRunning
		}
	}
	r.suspendWaiting(ctx, sums)
	out := sums[:0] // filtered in place
	for i := range threads {
		s := &sums[i]
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

// markForks sets Fork on the summaries whose start commit another one
// has.
func markForks(sums []Summary) {
	seen := make(map[string]int, len(sums)) // start commit → index of its first summary, or -1 once marked
	for i := range sums {
		start := sums[i].StartCommit
		if start == "" {
			continue
		}
		first, ok := seen[start]
		switch {
		case !ok:
			seen[start] = i
		case first >= 0:
			sums[first].Fork = true
			seen[start] = -1
			fallthrough
		default:
			sums[i].Fork = true
		}
	}
}

// isSHA1Hex is gitobj.IsHash for what git prints (lower-case hex),
// without its decoding copy.
func isSHA1Hex(s string) bool {
	if len(s) != 2*len(gitobj.ZeroHash) {
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
// (its Thread is left empty): the objects may arrive later. So does a
// thread whose start commit cannot be reached, which is shown without one.
func (r *Repo) summarizeHead(ctx context.Context, id ThreadID, key cacheKey, starts *startCommits) cachedSummary {
	t, err := r.ThreadAt(ctx, id, key.head)
	var st State
	if err == nil {
		st, err = r.headState(ctx, t, key.attempts)
	}
	start, startErr := r.walkToStart(ctx, key.head, starts)
	if err != nil {
		sum := Summary{HeadCommit: key.head.String(), Status: StatusFailed, Error: err.Error(), CreatedAt: id.Time().UTC(), Branch: start.branch}
		if startErr == nil {
			sum.StartCommit = start.commit.String()
		}
		return cachedSummary{key: key, sum: sum}
	}
	c := cachedSummary{key: key, sum: summaryOf(t, st, start)}
	if startErr != nil {
		c.sum.Thread = ""
	}
	return c
}
