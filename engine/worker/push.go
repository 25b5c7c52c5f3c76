package worker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/text"
)

func (w *Worker) readLease(oid string) (*Lease, error) {
	c, err := gitobj.GetCommit(w.Repo.Store.Storer(), gitobj.NewHash(oid))
	if err != nil {
		return nil, err
	}
	return ParseLease(c.Message)
}

// MayBeLeased reports whether a lease on thread id may have been fetched
// from any remote: false only when the ref files show no ref
// refs/remotes/<remote>/uwf/leases/<id>, loose or packed, whatever the
// remote. It needs neither git nor the configuration, so a step can skip
// looking up the default remote (a git process) for the common thread
// that no worker holds. Any doubt (another ref backend, a directory that
// cannot be read) is true; ReadLease then decides.
func MayBeLeased(repo *chain.Repo, id chain.ThreadID) bool {
	suffix := "/uwf/leases/" + string(id)
	remotes := filepath.Join(repo.Info.CommonDir, "refs", "remotes")
	maybe := false
	err := filepath.WalkDir(remotes, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if path == remotes && errors.Is(err, fs.ErrNotExist) {
				return nil // no remote-tracking refs at all
			}
			maybe = true
			return filepath.SkipAll
		case d.IsDir():
			// Every directory is walked: a remote's name may nest in
			// another's refs ("o/uwf/threads/b"). Loose remote thread
			// refs are only names to compare here (no file is read), and
			// a fetch packs them.
			return nil
		case strings.HasSuffix(filepath.ToSlash(path), suffix):
			maybe = true
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil || maybe {
		return true
	}
	found, ok, err := repo.RefFiles().AnyPacked("refs/remotes/", func(name string) bool {
		return strings.HasSuffix(name, suffix)
	})
	return found || !ok || err != nil
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
		c, err := gitobj.GetCommit(repo.Store.Storer(), gitobj.NewHash(r.OID))
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
