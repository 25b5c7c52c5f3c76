package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitcli"
	"github.com/git-uwf/git-uwf/internal/uwfsync"
)

// DefaultLease is how long a claim lasts unless it is renewed.
const DefaultLease = 10 * time.Minute

// Outcome is what came of one step.
type Outcome struct {
	// Stepped is true when the step was appended to the local thread.
	Stepped bool
	// Status is the thread's status after the step, or what stopped it.
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

	treeOnce  sync.Once
	emptyTree string
	treeErr   error
}

// Stats count what a Run did.
type Stats struct {
	Steps, Failed, Lost int
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
		lease, ok, err := w.claim(ctx, cand)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		cand.oldLease = lease
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
	list, err := w.Repo.List(ctx, chain.ListOptions{Statuses: []chain.Status{chain.StatusIdle}})
	if err != nil {
		return nil, err
	}
	for _, s := range list {
		head, onRemote := heads[s.Thread]
		if !onRemote || (w.Workflow != "" && s.Workflow != w.Workflow) {
			continue
		}
		if old, leased := leases[s.Thread]; leased && takeover[s.Thread] != old {
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

// divergent handles a thread whose local head is not the remote's after
// the fetch. Only the worker's own lost step (local ahead of the remote by
// what it appended) is taken back; anything else is left alone and
// reported once: a step made by hand and not pushed yet (local ahead), or
// a remote head reconcile refused (invalid, error). The local ref never
// moves to data reconcile did not accept.
func (w *Worker) divergent(ctx context.Context, id chain.ThreadID, local, remote string, res uwfsync.Result) {
	if own := w.ownSteps[id]; own != "" && own == local && res.Kind == uwfsync.KindLocalAhead {
		if err := w.Repo.Git.UpdateRefs(ctx, "uwf worker: lost step taken back", gitcli.RefUpdate{
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
		w.logf("thread %s: left alone: %s's head %s was not accepted: %s", id, w.Remote, short(remote), firstLine(res.Reason))
	default:
		w.logf("thread %s: left alone: local head %s, %s's %s (%s)", id, short(local), w.Remote, short(remote), res.Kind)
	}
}

func (w *Worker) readLease(oid string) (*Lease, error) {
	c, err := object.GetCommit(w.Repo.Store.Storer(), plumbing.NewHash(oid))
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
		c, err := object.GetCommit(repo.Store.Storer(), plumbing.NewHash(r.OID))
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
func (w *Worker) pushLease(ctx context.Context, id chain.ThreadID, oid, old, head string) (bool, error) {
	ref := LeaseRef(id)
	return w.push(ctx, []string{"--force-with-lease=" + ref + ":" + old}, oid+":"+ref, head+":"+id.Ref())
}

// push runs an atomic push and reports whether the remote took it; a
// rejection is not an error.
func (w *Worker) push(ctx context.Context, flags []string, refspecs ...string) (bool, error) {
	args := append([]string{"push", "--atomic", "--porcelain", "--no-verify"}, flags...)
	args = append(args, w.Remote)
	args = append(args, refspecs...)
	out, err := w.Repo.Git.Run(ctx, nil, args...)
	if err == nil {
		return true, nil
	}
	var ge *gitcli.GitError
	if errors.As(err, &ge) && (strings.Contains(string(out), "[rejected]") || strings.Contains(string(out), "[remote rejected]") ||
		strings.Contains(ge.Stderr, "rejected") || strings.Contains(ge.Stderr, "stale info")) {
		return false, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	// A network failure: the atomic push left the old or the new state;
	// the next look finds out which. It costs a retry, not the worker.
	w.logf("push to %s failed: %v", w.Remote, err)
	return false, nil
}

// claim takes the candidate's lease. It returns the lease commit.
func (w *Worker) claim(ctx context.Context, c candidate) (string, bool, error) {
	l := &Lease{Thread: c.id, Worker: w.Name, Head: c.head, Expires: w.now().Add(w.Lease)}
	oid, err := w.leaseCommit(ctx, l, c.oldLease)
	if err != nil {
		return "", false, err
	}
	ok, err := w.pushLease(ctx, c.id, oid, c.oldLease, c.head)
	if err != nil || !ok {
		return "", false, err
	}
	if c.oldLease != "" {
		w.logf("thread %s: took over an expired lease", c.id)
	}
	return oid, true, nil
}

// release deletes the worker's lease (only if it is still the worker's).
func (w *Worker) release(ctx context.Context, id chain.ThreadID, lease string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	ref := LeaseRef(id)
	_, _ = w.push(rctx, []string{"--force-with-lease=" + ref + ":" + lease}, ":"+ref)
}

type stepResult int

const (
	resultPushed stepResult = iota
	resultNoStep
	resultFailed
	resultLost
)

// continueWith claims a thread this worker just stepped, at the head it
// pushed, and steps it again.
func (w *Worker) continueWith(ctx context.Context, c *candidate) (stepResult, *candidate) {
	w.mu.Lock()
	if w.inflight[c.id] {
		w.mu.Unlock()
		return resultNoStep, nil
	}
	lease, ok, err := w.claim(ctx, *c)
	if err != nil || !ok {
		w.mu.Unlock()
		return resultNoStep, nil
	}
	c.oldLease = lease
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
	lease := c.oldLease // the lease commit claim returned
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
			cur := lease
			leaseMu.Unlock()
			l := &Lease{Thread: c.id, Worker: w.Name, Head: c.head, Expires: w.now().Add(w.Lease)}
			w.mu.Lock()
			oid, err := w.leaseCommit(stepCtx, l, cur)
			ok := false
			if err == nil {
				ok, err = w.pushLease(stepCtx, c.id, oid, cur, c.head)
			}
			w.mu.Unlock()
			if stepCtx.Err() != nil {
				return
			}
			if err != nil || !ok {
				w.logf("thread %s: lost the lease; stopping the step", c.id)
				leaseMu.Lock()
				lost = true
				leaseMu.Unlock()
				cancel()
				return
			}
			leaseMu.Lock()
			lease = oid
			leaseMu.Unlock()
		}
	}()
	w.logf("thread %s: claimed at %s", c.id, short(c.head))
	o := w.Step(stepCtx, c.id)
	cancel()
	<-renewDone
	w.mu.Lock()
	defer w.mu.Unlock()
	if lost || !o.Stepped {
		if !lost {
			w.release(ctx, c.id, lease)
		}
		w.resetLocal(ctx, c)
		if lost {
			return resultLost, nil
		}
		if ctx.Err() != nil {
			return resultNoStep, nil
		}
		w.logf("thread %s: step failed: %s", c.id, firstLine(o.Err))
		return resultFailed, nil
	}
	head, err := w.localHead(ctx, c.id)
	if err != nil {
		w.release(ctx, c.id, lease)
		return resultFailed, nil
	}
	pctx, pcancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer pcancel()
	ref := LeaseRef(c.id)
	ok, err := w.push(pctx, []string{"--force-with-lease=" + ref + ":" + lease}, head+":"+c.id.Ref(), ":"+ref)
	if err != nil || !ok {
		// The lease was taken over, or the remote moved: the step is
		// discarded, nothing is forced.
		w.logf("thread %s: push refused (lease lost); the step is discarded", c.id)
		w.resetLocal(ctx, c)
		return resultLost, nil
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
	if err := w.Repo.Git.UpdateRefs(context.WithoutCancel(ctx), "uwf worker: step discarded", gitcli.RefUpdate{Ref: c.id.Ref(), Old: cur, New: c.head}); err != nil {
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

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
