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

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
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

func (w *Worker) readLease(oid string) (*Lease, error) {
	c, err := gitobj.GetCommit(w.Repo.Store.Storer(), plumbing.NewHash(oid))
	if err != nil {
		return nil, err
	}
	return ParseLease(c.Message)
}

// ReadLease reads the lease of a thread as last fetched from remote (nil
// when there is none).
func ReadLease(ctx context.Context, repo *chain.Repo, remote string, id chain.ThreadID) (*Lease, error) {
	ref := "refs/remotes/" + remote + "/uwf/leases/" + string(id)
	refs, err := repo.ListRefs(ctx, ref)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	for _, r := range refs {
		if r.Name != ref {
			continue
		}
		c, err := gitobj.GetCommit(repo.Store.Storer(), plumbing.NewHash(r.OID))
		if err != nil {
			return nil, err
		}
		l, err := ParseLease(c.Message)
		if err != nil {
			return nil, err
		}
		l.Commit = r.OID
		return l, nil
	}
	return nil, nil
}

// leaseCommit writes a lease commit continuing parent ("" for a new one).
func (w *Worker) leaseCommit(ctx context.Context, l *Lease, parent string) (string, error) {
	w.treeOnce.Do(func() {
		// hash-object reads stdin; Output gives it none: the empty tree.
		w.emptyTree, w.treeErr = w.Repo.Git.Output(ctx, "hash-object", "-t", "tree", "-w", "--stdin")
	})
	if w.treeErr != nil {
		return "", fmt.Errorf("write the empty tree: %w", w.treeErr)
	}
	tree := w.emptyTree
	args := []string{"-c", "user.name=git-uwf worker", "-c", "user.email=worker@uwf.invalid", "commit-tree", tree, "-m", l.message()}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	oid, err := w.Repo.Git.Output(ctx, args...)
	if err != nil {
		return "", fmt.Errorf("write the lease commit: %w", err)
	}
	return oid, nil
}

// pushLease pushes lease commit oid to the thread's lease ref, expecting
// the ref at old ("" for absent), in one atomic push with the thread's
// head: without "+" and with a lease on the ref's value only one worker
// can win, and a head that moved on the remote makes the push of the
// claimed (older) head a non-fast-forward, so the claim fails with it.
func (w *Worker) pushLease(ctx context.Context, id chain.ThreadID, oid, old, head string) (pushOutcome, error) {
	ref := LeaseRef(id)
	return w.push(ctx, []string{"--force-with-lease=" + ref + ":" + old}, oid+":"+ref, head+":"+id.Ref())
}

// pushOutcome is what came of a push.
type pushOutcome int

const (
	// pushTaken: the remote took every ref.
	pushTaken pushOutcome = iota
	// pushRejected: the remote refused it (another worker won the lease,
	// or the thread moved there); trying again cannot help.
	pushRejected
	// pushFailed: the push did not complete (the remote could not be
	// reached, the connection broke); the same push may work later.
	pushFailed
)

// classifyPush tells a push the remote refused from one that failed on
// the way, from git push --porcelain's stdout and error: git reports every
// ref it refused, or the remote refused, on a line flagged "!"
// ([rejected], [remote rejected], stale info, atomic push failed), while a
// transport failure reports no ref at all.
func classifyPush(stdout []byte, err error) pushOutcome {
	if err == nil {
		return pushTaken
	}
	for _, line := range strings.Split(string(stdout), "\n") {
		if strings.HasPrefix(line, "!\t") {
			return pushRejected
		}
	}
	return pushFailed
}

// push runs an atomic push and reports what came of it; a rejection is
// not an error, a failure returns git's error (or ctx's).
// pushWithChildren pushes refspecs and the child threads' refspecs in one
// atomic push. When the remote refuses it and there were children, the
// refspecs are pushed again alone: a child ref the remote holds further on
// (someone pushed it by hand) must not cost the paid step that refspecs
// carry; the children are then left to git uwf push.
func (w *Worker) pushWithChildren(ctx context.Context, flags, refspecs, children []string) (pushOutcome, error) {
	o, err := w.push(ctx, flags, append(slices.Clip(refspecs), children...)...)
	if o != pushRejected || len(children) == 0 {
		return o, err
	}
	o, err = w.push(ctx, flags, refspecs...)
	if o == pushTaken {
		w.logf("the remote refused the child threads pushed with %s; they are left to git uwf push %s", refspecs[0], w.Remote)
	}
	return o, err
}

func (w *Worker) push(ctx context.Context, flags []string, refspecs ...string) (pushOutcome, error) {
	args := append([]string{"push", "--atomic", "--porcelain", "--no-verify"}, flags...)
	args = append(args, w.Remote)
	args = append(args, refspecs...)
	out, err := w.Repo.Git.Run(ctx, nil, args...)
	o := classifyPush(out, err)
	if o != pushFailed {
		return o, nil
	}
	if ctx.Err() != nil {
		return o, ctx.Err()
	}
	return o, err
}

// Backoff of pushes retried after a failure.
const (
	retryFirst = time.Second
	retryMax   = 30 * time.Second
)

// pushUntil runs attempt until the remote takes or refuses the push. A
// failed attempt (the remote not reached: the atomic push left the old
// state or the new one, and a repeat finds out which) is retried with
// backoff until deadline, the expiry of the worker's lease: past it
// another worker may take the thread, so pushUntil gives up with the last
// failure. attempt takes w.mu itself; the waits hold no lock.
func (w *Worker) pushUntil(ctx context.Context, deadline time.Time, what string, attempt func(ctx context.Context) (pushOutcome, error)) (pushOutcome, error) {
	wait := retryFirst
	for {
		actx, cancel := context.WithTimeout(ctx, time.Minute)
		o, err := attempt(actx)
		cancel()
		if o != pushFailed || ctx.Err() != nil {
			return o, err
		}
		left := deadline.Sub(w.now())
		if left <= 0 {
			return o, err
		}
		w.logf("%s: push to %s failed (%s); retrying in %s", what, w.Remote, text.FirstLine(fmt.Sprint(err), logWidth), min(wait, left).Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return o, ctx.Err()
		case <-time.After(min(wait, left)):
		}
		wait = min(2*wait, retryMax)
	}
}

// claim takes the candidate's lease. It returns the lease commit and its
// expiry. A claim that does not reach the remote is not retried: the next
// look tries again.
func (w *Worker) claim(ctx context.Context, c candidate) (string, time.Time, bool, error) {
	l := &Lease{Thread: c.id, Worker: w.Name, Head: c.head, Expires: w.now().Add(w.Lease)}
	oid, err := w.leaseCommit(ctx, l, c.oldLease)
	if err != nil {
		return "", time.Time{}, false, err
	}
	o, err := w.pushLease(ctx, c.id, oid, c.oldLease, c.head)
	switch {
	case o == pushFailed && ctx.Err() != nil:
		return "", time.Time{}, false, ctx.Err()
	case o == pushFailed:
		w.logf("thread %s: claim: push to %s failed: %s", c.id, w.Remote, text.FirstLine(fmt.Sprint(err), logWidth))
		return "", time.Time{}, false, nil
	case o == pushRejected:
		return "", time.Time{}, false, nil
	}
	if c.oldLease != "" {
		w.logf("thread %s: took over an expired lease", c.id)
	}
	return oid, l.Expires, true, nil
}

// release deletes the worker's lease (only if it is still the worker's).
func (w *Worker) release(ctx context.Context, id chain.ThreadID, lease string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	ref := LeaseRef(id)
	_, _ = w.push(rctx, []string{"--force-with-lease=" + ref + ":" + lease}, ":"+ref)
}

// releaseWithChildren deletes the worker's lease on a thread that got no
// new step, pushing in the same atomic push the child threads the step
// moved (a child that suspended, or failed after some steps): their steps
// are paid for, and on the remote the parent shows suspended, or resumes
// the same child when stepped again from another clone. Children the
// remote has moved on from are not forced: the lease is then released
// alone.
func (w *Worker) releaseWithChildren(ctx context.Context, id chain.ThreadID, lease string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	specs, err := w.activeChildRefspecs(rctx, id)
	if err != nil {
		w.logf("thread %s: its child threads are not pushed: %s", id, text.FirstLine(err.Error(), logWidth))
	}
	if len(specs) > 0 {
		ref := LeaseRef(id)
		o, err := w.push(rctx, []string{"--force-with-lease=" + ref + ":" + lease}, append([]string{":" + ref}, specs...)...)
		if o == pushTaken {
			w.logf("thread %s: no step; pushed %d child thread(s) it moved", id, len(specs))
			return
		}
		w.logf("thread %s: the child threads it moved are not pushed (%s)", id, text.FirstLine(pushReason(o, err), logWidth))
	}
	w.release(ctx, id, lease)
}

// pushReason says why a push was not taken.
func pushReason(o pushOutcome, err error) string {
	if o == pushRejected {
		return "the remote refused them: it has moved them on"
	}
	return fmt.Sprint(err)
}

// activeChildRefspecs returns the refspecs that push the child thread
// playing id's current role, and, through it, the children it names and
// its own active child, for those whose local head is not the remote's
// as last fetched. A thread at the child's id that does not link back to
// id's head is no child (see chain.Repo.ActiveChild) and is not pushed.
func (w *Worker) activeChildRefspecs(ctx context.Context, id chain.ThreadID) ([]string, error) {
	t, err := w.Repo.Thread(ctx, id)
	if err != nil {
		return nil, err
	}
	active, err := w.Repo.ActiveChild(ctx, t)
	if err != nil || active == nil {
		return nil, err
	}
	cs := w.newChildSpecs()
	if err := cs.add(ctx, active.ID); err != nil {
		return nil, err
	}
	if len(cs.specs) == 0 {
		return nil, nil
	}
	tracking := make([]string, 0, len(cs.ids))
	for _, c := range cs.ids {
		tracking = append(tracking, "refs/remotes/"+w.Remote+"/uwf/threads/"+string(c))
	}
	refs, err := w.Repo.ListRefs(ctx, tracking...)
	if err != nil {
		return nil, err
	}
	onRemote := map[string]bool{}
	for _, r := range refs {
		onRemote[r.OID+":"+strings.Replace(r.Name, "refs/remotes/"+w.Remote+"/uwf/", "refs/uwf/", 1)] = true
	}
	var moved []string
	for _, spec := range cs.specs {
		if !onRemote[spec] {
			moved = append(moved, spec)
		}
	}
	return moved, nil
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

// childRefspecs returns the refspecs that push, with a step, the child
// threads that played its roles: those named by the steps after base up to
// head, and, through their chains, their own children. They are pushed as
// any new ref is (created or fast-forwarded, never forced), in the step's
// atomic push.
func (w *Worker) childRefspecs(ctx context.Context, base, head string) ([]string, error) {
	cs := w.newChildSpecs()
	for c := plumbing.NewHash(head); c.String() != base && !c.IsZero(); {
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
