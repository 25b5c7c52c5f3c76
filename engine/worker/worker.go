package worker

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/internal/text"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// DefaultLease is how long a claim lasts unless it is renewed.
const DefaultLease = 10 * time.Minute

// logWidth bounds, in runes, the first line of an error or reason that a
// log line quotes.
const logWidth = 300

// Outcome is what came of one step.
type Outcome struct {
	// Stepped is true when the step was appended to the local thread.
	Stepped bool
	// Status is the thread's status after the step, or what stopped it
	// ("suspended" without a step: a child thread playing its role
	// suspended; "failed").
	Status string
	Err    string
}

// Worker claims, steps and pushes threads of one remote.
type Worker struct {
	Repo   *chain.Repo
	Remote string
	// Name identifies this worker in its leases (host and pid by default).
	Name string
	// Lease is how long a claim lasts; it is renewed while the step runs.
	Lease time.Duration
	// Workflow, when set, limits the worker to threads of that workflow.
	Workflow string
	// Step runs one step of a thread in the local repository.
	Step func(ctx context.Context, id chain.ThreadID) Outcome
	// Log receives one line per claim, step and push.
	Log io.Writer
	// Poll is the pause between looks at the remote when nothing is
	// runnable (default: 2s, or Lease/4 when shorter).
	Poll time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time

	mu       sync.Mutex // serializes fetch, claim and push (git ref updates)
	inflight map[chain.ThreadID]bool
	// ownSteps are steps this worker appended, lost and could not take
	// back (thread → its step): the only local heads it moves itself.
	ownSteps map[chain.ThreadID]string
	// leftAlone remembers the threads reported as left alone (thread →
	// "local remote"), so each is reported once per pair of heads.
	leftAlone map[chain.ThreadID]string
	// failedAt are the heads at which a step of a thread failed in this
	// run (thread → head): a parent whose child thread failed stays idle,
	// and is left to other workers or to a person like any failed thread.
	failedAt map[chain.ThreadID]string

	treeOnce  sync.Once
	emptyTree string
	treeErr   error
}

// Stats count what a Run did. Unpushed steps are kept in the local clone:
// the remote could not be reached until their lease ran out.
type Stats struct {
	Steps, Failed, Lost, Unpushed int
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		fmt.Fprintf(w.Log, "%s "+format+"\n", append([]any{w.now().Format("15:04:05.000")}, args...)...)
	}
}

// DefaultName names a worker by host and pid.
func DefaultName() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "worker"
	}
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// snapshot is what one look at the remote found.
type snapshot struct {
	// runnable are threads to claim, oldest first, with the lease to take
	// over ("" when there is none).
	runnable []candidate
	// leased counts live leases held by other workers.
	leased int
}

type candidate struct {
	id       chain.ThreadID
	head     string
	oldLease string
	// expires is when the lease claim took runs out.
	expires time.Time
}

// Run claims and steps threads with jobs loops at once until ctx ends or,
// with untilIdle, until nothing is runnable or leased on the remote.
func (w *Worker) Run(ctx context.Context, jobs int, untilIdle bool) (Stats, error) {
	if w.Lease <= 0 {
		w.Lease = DefaultLease
	}
	if w.Poll <= 0 {
		w.Poll = min(2*time.Second, w.Lease/4)
	}
	if w.Name == "" {
		w.Name = DefaultName()
	}
	if err := uwfsync.CheckRemote(ctx, w.Repo, w.Remote); err != nil {
		return Stats{}, err
	}
	w.inflight = map[chain.ThreadID]bool{}
	w.ownSteps = map[chain.ThreadID]string{}
	w.leftAlone = map[chain.ThreadID]string{}
	w.failedAt = map[chain.ThreadID]string{}
	var (
		st    Stats
		stMu  sync.Mutex
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	for j := 0; j < max(jobs, 1); j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c, idle, err := w.claimNext(ctx)
				if err != nil {
					errMu.Lock()
					if first == nil {
						first = err
					}
					errMu.Unlock()
					return
				}
				if c == nil {
					if idle && untilIdle {
						return
					}
					select {
					case <-ctx.Done():
					case <-time.After(w.Poll):
					}
					continue
				}
				res, next := w.stepClaimed(ctx, c)
				for res == resultPushed && next != nil && ctx.Err() == nil {
					// The thread is still runnable and this worker knows its
					// head: claim it again without another look.
					stMu.Lock()
					st.Steps++
					stMu.Unlock()
					res, next = w.continueWith(ctx, next)
				}
				stMu.Lock()
				switch res {
				case resultPushed:
					st.Steps++
				case resultFailed:
					st.Failed++
				case resultLost:
					st.Lost++
				case resultUnpushed:
					st.Unpushed++
				}
				stMu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return st, first
	}
	return st, ctx.Err()
}

// claimNext looks at the remote and claims a runnable thread. It returns
// nil when none could be claimed; idle is true when nothing is runnable,
// leased, or being stepped by this process.
func (w *Worker) claimNext(ctx context.Context) (c *candidate, idle bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	snap, err := w.look(ctx)
	if err != nil {
		return nil, false, err
	}
	for i := range snap.runnable {
		cand := snap.runnable[i]
		if w.inflight[cand.id] {
			continue
		}
		lease, expires, ok, err := w.claim(ctx, cand)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		cand.oldLease, cand.expires = lease, expires
		w.inflight[cand.id] = true
		return &cand, false, nil
	}
	return nil, len(snap.runnable) == 0 && snap.leased == 0 && len(w.inflight) == 0, nil
}

// look fetches the remote and lists what may be claimed.
func (w *Worker) look(ctx context.Context) (*snapshot, error) {
	rep, err := uwfsync.Fetch(ctx, w.Repo, w.Remote)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", w.Remote, err)
	}
	// What reconcile made of each remote thread: only a remote head it
	// accepted may ever become a local head.
	kinds := map[string]uwfsync.Result{}
	for _, r := range rep.Results {
		kinds[r.Ref] = r
	}
	tracking := "refs/remotes/" + w.Remote + "/uwf/"
	refs, err := w.Repo.ListRefs(ctx, tracking+"threads/", tracking+"leases/")
	if err != nil {
		return nil, err
	}
	heads := map[chain.ThreadID]string{}
	leases := map[chain.ThreadID]string{}
	for _, r := range refs {
		rest := strings.TrimPrefix(r.Name, tracking)
		ns, key, _ := strings.Cut(rest, "/")
		id, err := chain.ParseThreadID(key)
		if err != nil || string(id) != key {
			continue
		}
		if ns == "threads" {
			heads[id] = r.OID
		} else if ns == "leases" {
			leases[id] = r.OID
		}
	}
	snap := &snapshot{}
	now := w.now()
	takeover := map[chain.ThreadID]string{}
	for id, oid := range leases {
		l, err := w.readLease(oid)
		if err != nil || l.Thread != id || l.Expired(now) {
			// An unreadable lease is treated as expired: it blocks nothing
			// beyond its ref, which the takeover replaces.
			takeover[id] = oid
			continue
		}
		if !w.inflight[id] {
			snap.leased++
		}
	}
	list, err := w.Repo.List(ctx, chain.ListOptions{All: true})
	if err != nil {
		return nil, err
	}
	played := playedThrough(list)
	for _, s := range list {
		if s.Status != chain.StatusIdle || played[s.Thread] {
			// A child thread (a role played by a workflow) is stepped
			// through its parent, which adopts it: claimed on its own, its
			// steps could run twice at once.
			continue
		}
		head, onRemote := heads[s.Thread]
		if !onRemote || (w.Workflow != "" && s.Workflow != w.Workflow) {
			continue
		}
		if old, leased := leases[s.Thread]; leased && takeover[s.Thread] != old {
			continue
		}
		if w.inflight[s.Thread] {
			// Being stepped or pushed by this worker: its local head is
			// ahead of the remote's until the push.
			continue
		}
		if w.failedAt[s.Thread] == head {
			continue
		}
		if s.HeadCommit != head {
			w.divergent(ctx, s.Thread, s.HeadCommit, head, kinds[s.Thread.Ref()])
			continue
		}
		delete(w.leftAlone, s.Thread)
		snap.runnable = append(snap.runnable, candidate{id: s.Thread, head: head, oldLease: takeover[s.Thread]})
	}
	slices.SortFunc(snap.runnable, func(a, b candidate) int { return strings.Compare(string(a.id), string(b.id)) })
	return snap, nil
}

// playedThrough returns the threads of list that are at the child id of
// another listed thread's current role: children whose parent is still
// running them. A child's id carries its parent's head time, a whole
// second, so only threads created on one are looked for.
func playedThrough(list []chain.Summary) map[chain.ThreadID]bool {
	onSecond := map[int64]bool{}
	for _, s := range list {
		if ms := s.CreatedAt.UnixMilli(); ms%1000 == 0 && s.Status == chain.StatusIdle {
			onSecond[ms] = true
		}
	}
	if len(onSecond) == 0 {
		return nil
	}
	played := map[chain.ThreadID]bool{}
	for i := range list {
		if !onSecond[list[i].UpdatedAt.UnixMilli()] {
			continue
		}
		if id, ok := list[i].ActiveChildID(); ok {
			played[id] = true
		}
	}
	return played
}

// divergent handles a thread whose local head is not the remote's after
// the fetch. Only the worker's own lost step (local ahead of the remote by
// what it appended) is taken back; anything else is left alone and
// reported once: a step made by hand and not pushed yet (local ahead), or
// a remote head reconcile refused (invalid, error). The local ref never
// moves to data reconcile did not accept.
func (w *Worker) divergent(ctx context.Context, id chain.ThreadID, local, remote string, res uwfsync.Result) {
	if own := w.ownSteps[id]; own != "" && own == local && res.Kind == uwfsync.KindLocalAhead {
		if err := w.Repo.Git.UpdateRefs(ctx, "uwf worker: lost step taken back", gitrepo.RefUpdate{
			Ref: id.Ref(), Old: local, New: remote}); err == nil {
			delete(w.ownSteps, id)
			w.logf("thread %s: lost step %s taken back to the remote's %s", id, short(local), short(remote))
			return
		}
	}
	key := local + " " + remote
	if w.leftAlone[id] == key {
		return
	}
	w.leftAlone[id] = key
	switch res.Kind {
	case uwfsync.KindLocalAhead:
		w.logf("thread %s: left alone: the local head %s has steps %s lacks (push them with git uwf push %s)", id, short(local), w.Remote, w.Remote)
	case uwfsync.KindInvalid, uwfsync.KindError:
		w.logf("thread %s: left alone: %s's head %s was not accepted: %s", id, w.Remote, short(remote), text.FirstLine(res.Reason, logWidth))
	default:
		w.logf("thread %s: left alone: local head %s, %s's %s (%s)", id, short(local), w.Remote, short(remote), res.Kind)
	}
}

type stepResult int

const (
	resultPushed stepResult = iota
	resultNoStep
	resultFailed
	resultLost
	// resultUnpushed: the step is kept in the local clone; the remote
	// could not be reached until the lease ran out.
	resultUnpushed
)

// continueWith claims a thread this worker just stepped, at the head it
// pushed, and steps it again.
func (w *Worker) continueWith(ctx context.Context, c *candidate) (stepResult, *candidate) {
	w.mu.Lock()
	if w.inflight[c.id] {
		w.mu.Unlock()
		return resultNoStep, nil
	}
	lease, expires, ok, err := w.claim(ctx, *c)
	if err != nil || !ok {
		w.mu.Unlock()
		return resultNoStep, nil
	}
	c.oldLease, c.expires = lease, expires
	w.inflight[c.id] = true
	w.mu.Unlock()
	return w.stepClaimed(ctx, c)
}

// stepClaimed runs the claimed thread's step while renewing the lease,
// then pushes the new head and deletes the lease in one atomic push. When
// the thread stays idle it returns the candidate for its next step.
func (w *Worker) stepClaimed(ctx context.Context, c *candidate) (stepResult, *candidate) {
	defer func() {
		w.mu.Lock()
		delete(w.inflight, c.id)
		w.mu.Unlock()
	}()
	lease, expires := c.oldLease, c.expires // the lease commit claim returned
	stepCtx, cancel := context.WithCancel(ctx)
	var leaseMu sync.Mutex
	lost := false
	renewDone := make(chan struct{})
	go func() {
		defer close(renewDone)
		t := time.NewTicker(w.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-stepCtx.Done():
				return
			case <-t.C:
			}
			leaseMu.Lock()
			cur, curExpires := lease, expires
			leaseMu.Unlock()
			l := &Lease{Thread: c.id, Worker: w.Name, Head: c.head, Expires: w.now().Add(w.Lease)}
			w.mu.Lock()
			oid, err := w.leaseCommit(stepCtx, l, cur)
			w.mu.Unlock()
			o := pushFailed
			if err == nil {
				// A renewal that cannot reach the remote is retried until
				// the lease runs out; only then, or when the remote
				// refuses it (the lease was taken over), is it lost.
				// An attempt under way finishes even when the step ends:
				// a renewal cut mid-way may have landed, and the final
				// push must expect the lease the remote holds.
				o, err = w.pushUntil(stepCtx, curExpires, "thread "+string(c.id)+": renew the lease", func(context.Context) (pushOutcome, error) {
					actx, acancel := context.WithTimeout(context.WithoutCancel(stepCtx), time.Minute)
					defer acancel()
					w.mu.Lock()
					defer w.mu.Unlock()
					return w.pushLease(actx, c.id, oid, cur, c.head)
				})
			}
			if o == pushTaken {
				leaseMu.Lock()
				lease, expires = oid, l.Expires
				leaseMu.Unlock()
				continue
			}
			switch {
			case stepCtx.Err() != nil:
				return
			case o == pushRejected:
				w.logf("thread %s: lost the lease (taken over); stopping the step", c.id)
			default:
				w.logf("thread %s: lost the lease (not renewed before it ran out: %s); stopping the step", c.id, text.FirstLine(fmt.Sprint(err), logWidth))
			}
			leaseMu.Lock()
			lost = true
			leaseMu.Unlock()
			cancel()
			return
		}
	}()
	w.logf("thread %s: claimed at %s", c.id, short(c.head))
	o := w.Step(stepCtx, c.id)
	cancel()
	<-renewDone
	w.mu.Lock()
	if lost || !o.Stepped {
		defer w.mu.Unlock()
		if !lost {
			w.releaseWithChildren(ctx, c.id, lease)
		}
		w.resetLocal(ctx, c)
		if lost {
			return resultLost, nil
		}
		if ctx.Err() != nil {
			return resultNoStep, nil
		}
		if o.Status == string(chain.StatusSuspended) {
			// A child thread playing the thread's role suspended: the
			// thread waits for an answer, nothing failed.
			w.logf("thread %s: suspended: %s", c.id, text.FirstLine(o.Err, logWidth))
			return resultNoStep, nil
		}
		w.failedAt[c.id] = c.head
		w.logf("thread %s: step failed: %s", c.id, text.FirstLine(o.Err, logWidth))
		return resultFailed, nil
	}
	head, err := w.localHead(ctx, c.id)
	if err != nil {
		w.release(ctx, c.id, lease)
		w.mu.Unlock()
		return resultFailed, nil
	}
	children, err := w.childRefspecs(ctx, c.head, head)
	if err != nil {
		// The step is pushed anyway; the remote lacks its child until
		// someone pushes it (git uwf push).
		w.logf("thread %s: the child threads of step %s are not pushed: %s", c.id, short(head), text.FirstLine(err.Error(), logWidth))
	}
	w.mu.Unlock()
	ref := LeaseRef(c.id)
	// The step is paid for: a push that does not reach the remote is
	// retried until the lease runs out (or the worker is asked to stop),
	// and then kept in this clone. An attempt under way always finishes.
	pushed, err := w.pushUntil(ctx, expires, "thread "+string(c.id), func(context.Context) (pushOutcome, error) {
		pctx, pcancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer pcancel()
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.pushWithChildren(pctx, []string{"--force-with-lease=" + ref + ":" + lease}, []string{head + ":" + c.id.Ref(), ":" + ref}, children)
	})
	switch pushed {
	case pushRejected:
		// The lease was taken over, or the remote moved: the step is
		// discarded, nothing is forced.
		w.mu.Lock()
		w.logf("thread %s: push refused (lease lost); the step is discarded", c.id)
		w.resetLocal(ctx, c)
		w.mu.Unlock()
		return resultLost, nil
	case pushFailed:
		w.logf("thread %s: could not push step %s to %s before the lease ran out (%s); the step is kept in this clone: push it with git uwf push %s",
			c.id, short(head), w.Remote, text.FirstLine(fmt.Sprint(err), logWidth), w.Remote)
		return resultUnpushed, nil
	}
	w.logf("thread %s: pushed %s (%s)", c.id, short(head), o.Status)
	if o.Status == string(chain.StatusIdle) {
		return resultPushed, &candidate{id: c.id, head: head}
	}
	return resultPushed, nil
}

// localHead reads the local thread ref.
func (w *Worker) localHead(ctx context.Context, id chain.ThreadID) (string, error) {
	return w.Repo.Git.Output(ctx, "rev-parse", "--verify", "-q", id.Ref())
}

// resetLocal moves the local thread back to the claimed head when a step
// was appended but not pushed: the discarded step leaves no fork behind.
func (w *Worker) resetLocal(ctx context.Context, c *candidate) {
	cur, err := w.localHead(context.WithoutCancel(ctx), c.id)
	if err != nil || cur == c.head {
		return
	}
	if err := w.Repo.Git.UpdateRefs(context.WithoutCancel(ctx), "uwf worker: step discarded", gitrepo.RefUpdate{Ref: c.id.Ref(), Old: cur, New: c.head}); err != nil {
		// Remembered as this worker's own step: the next look takes it
		// back if it is still the local head.
		w.ownSteps[c.id] = cur
		return
	}
	delete(w.ownSteps, c.id)
}

func short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}
