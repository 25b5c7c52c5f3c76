package uwfsync

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// mode selects what reconcile may do.
type mode int

const (
	// modeSync does everything: new, fast-forward, fork, merge.
	modeSync mode = iota
	// modeAdopt only creates new refs and fast-forwards; divergence is
	// reported and left for an explicit sync.
	modeAdopt
)

// Reconcile brings the local refs/uwf/* up to date with the remote-tracking
// refs/remotes/<remote>/uwf/* (as left by a fetch), following the rules in
// the package documentation. It yields one Result per remote-tracking ref;
// a ref that cannot be reconciled is reported (invalid or error) and the
// others still are. The error is for failures that concern the whole run
// (the remote is not configured, git cannot list refs, cancellation).
func Reconcile(ctx context.Context, repo *chain.Repo, remote string) (*Report, error) {
	if err := CheckRemote(ctx, repo, remote); err != nil {
		return nil, err
	}
	return reconcile(ctx, repo, remote, modeSync)
}

// Adopt applies what plain git fetches brought into the remote-tracking
// namespaces of every remote set up with SetupRemote: refs that are new or
// that fast-forward are copied to refs/uwf/*; divergence is reported as
// KindDiverged and left for git uwf sync. It does no network I/O and never
// pushes, so it is safe to run before any command that reads threads.
func Adopt(ctx context.Context, repo *chain.Repo) ([]*Report, error) {
	remotes, err := SetUpRemotes(ctx, repo)
	if err != nil {
		return nil, err
	}
	var reports []*Report
	for _, remote := range remotes {
		rep, err := reconcile(ctx, repo, remote, modeAdopt)
		if rep != nil {
			reports = append(reports, rep)
		}
		if err != nil {
			return reports, err
		}
	}
	return reports, nil
}

type reconciler struct {
	repo   *chain.Repo
	remote string
	mode   mode
	local  map[string]string // refs/uwf/... → oid, kept current as refs move

	// cur collects what the ref being reconciled will move (see stage).
	cur staged
	// batch holds the decided moves of the refs reconciled so far; they
	// are applied together, in one ref transaction, by flush.
	batch []pendingMove
	// touched is the set of refs batch moves.
	touched map[string]bool
	// held counts the thread locks batch holds.
	held int
	// beforeFlush, when set (tests), runs just before the batch's
	// transaction, to let a test move a ref under the run.
	beforeFlush func()
}

// staged is what one ref's reconcile decided to move.
type staged struct {
	what    string // for an error: "create refs/uwf/…", "fast-forward …"
	msg     string // reflog message when applied alone
	updates []gitrepo.RefUpdate
	unlock  func() // the thread lock held until the move is applied
}

// pendingMove is a decided move waiting for the batch's transaction.
type pendingMove struct {
	staged
	res int // index of its result in the report
}

// maxHeldLocks bounds how many thread locks (open files) a batch holds:
// a run that fast-forwards more threads than that applies its moves in
// one transaction per maxHeldLocks threads. New refs take no lock.
const maxHeldLocks = 512

func reconcile(ctx context.Context, repo *chain.Repo, remote string, m mode) (*Report, error) {
	st, err := listState(ctx, repo, remote)
	if err != nil {
		return nil, err
	}
	rep, err := reconcileState(ctx, repo, remote, m, st)
	if err == nil {
		_ = saveAdopted(repo, remote, st, rep)
	}
	return rep, err
}

// reconcileState reconciles every remote-tracking ref of st, keeping
// st.local current as local refs move, and refreshes the alias index when
// this run moved a ref (the index follows remote-tracking refs too; when
// nothing moved it is as current as before).
//
// Every ref is first decided (validated, compared, its fork or merged
// attempts written) and the resulting moves are then applied together in
// one `git update-ref --stdin` transaction, each with its old value, so a
// fetch of thousands of new threads starts one git process for its refs,
// not one per thread (see flush for what happens when a ref moved under
// the run).
func reconcileState(ctx context.Context, repo *chain.Repo, remote string, m mode, st *refState) (*Report, error) {
	return newReconciler(repo, remote, m, st).run(ctx, st)
}

func newReconciler(repo *chain.Repo, remote string, m mode, st *refState) *reconciler {
	return &reconciler{repo: repo, remote: remote, mode: m, local: st.local, touched: map[string]bool{}}
}

func (rc *reconciler) run(ctx context.Context, st *refState) (*Report, error) {
	rep := &Report{Remote: rc.remote, Results: make([]Result, 0, len(st.trackingOrder))}
	defer rc.release()
	// Checking fetched threads reads every node of them; their aliases go
	// to the alias index in one append (with the Refresh below), not one
	// locked append per node.
	defer rc.repo.Store.BatchLearn()()
	for _, name := range st.trackingOrder {
		if rc.touched[name] {
			// A ref this run already moves (a fork saved under the name
			// the remote also has): apply the batch first so the second
			// move starts from the first one's result.
			rc.flush(ctx, rep)
		}
		res := rc.one(ctx, name, st.tracking[name])
		if err := ctx.Err(); err != nil {
			rc.dropCur()
			rc.flush(ctx, rep)
			return rep, err
		}
		rc.take(len(rep.Results))
		rep.add(res)
		if rc.held >= maxHeldLocks {
			rc.flush(ctx, rep)
		}
	}
	rc.flush(ctx, rep)
	moved := st.moved
	for _, res := range rep.Results {
		if res.New != res.Old {
			moved = true
			st.written++
		}
	}
	if !moved {
		return rep, nil
	}
	// After a run that wrote many refs (a first fetch of many threads),
	// pack them while the alias index refreshes: its listing of the ref
	// tips reads loose and packed refs as a concurrent git pack-refs
	// leaves them, and the rest of its work is reading commits.
	startPacking(ctx, rc.repo, st)
	refreshErr := rc.repo.Store.Refresh(ctx)
	waitPacking(st)
	if refreshErr != nil {
		return rep, fmt.Errorf("refresh the alias index after reconciling %s: %w", rc.remote, refreshErr)
	}
	return rep, nil
}

// stage records moves of the ref being reconciled, to be applied with the
// batch; what names the move in an error, msg is the reflog message used
// when the move has to be applied on its own. The values in rc.local are
// updated at once, so later decisions of the run see them.
func (rc *reconciler) stage(what, msg string, updates ...gitrepo.RefUpdate) {
	rc.cur.what, rc.cur.msg = what, msg
	rc.cur.updates = append(rc.cur.updates, updates...)
	for _, u := range updates {
		rc.local[u.Ref] = u.New
	}
}

// hold keeps a thread lock until the ref's move is applied.
func (rc *reconciler) hold(unlock func()) { rc.cur.unlock = unlock }

// take moves what the ref just reconciled staged into the batch, under the
// index of its result; a lock held for a ref that moves nothing is
// released at once.
func (rc *reconciler) take(res int) {
	cur := rc.cur
	rc.cur = staged{}
	if len(cur.updates) == 0 {
		if cur.unlock != nil {
			cur.unlock()
		}
		return
	}
	for _, u := range cur.updates {
		rc.touched[u.Ref] = true
	}
	if cur.unlock != nil {
		rc.held++
	}
	rc.batch = append(rc.batch, pendingMove{staged: cur, res: res})
}

// dropCur forgets what the current ref staged (the run was cancelled
// before its result was reported).
func (rc *reconciler) dropCur() {
	for _, u := range rc.cur.updates {
		rc.local[u.Ref] = u.Old
	}
	if rc.cur.unlock != nil {
		rc.cur.unlock()
	}
	rc.cur = staged{}
}

// release lets go of every lock the batch still holds.
func (rc *reconciler) release() {
	for _, p := range rc.batch {
		if p.unlock != nil {
			p.unlock()
		}
	}
	rc.batch, rc.held = nil, 0
}

// flush applies the batch in one ref transaction, every move with its old
// value (compare-and-swap), and releases the batch's locks.
//
// When that transaction fails — most often because one ref moved under the
// run (a step, another sync), which makes git refuse the whole
// transaction — the moves are applied one result at a time instead, for
// this batch only: one racing thread then costs only its own result (an
// error saying to sync again) and cannot block the others. Each result's
// own moves (a moved name and its saved fork) stay one transaction.
func (rc *reconciler) flush(ctx context.Context, rep *Report) {
	if len(rc.batch) == 0 {
		return
	}
	defer rc.release()
	clear(rc.touched)
	if rc.beforeFlush != nil {
		rc.beforeFlush()
	}
	var all []gitrepo.RefUpdate
	for _, p := range rc.batch {
		all = append(all, p.updates...)
	}
	msg := rc.batch[0].msg
	if len(rc.batch) > 1 {
		msg = "uwf: sync from " + rc.remote
	}
	if err := rc.repo.Git.UpdateRefs(ctx, msg, all...); err == nil {
		return
	}
	for _, p := range rc.batch {
		if err := rc.repo.Git.UpdateRefs(ctx, p.msg, p.updates...); err != nil {
			rc.failed(&rep.Results[p.res], p, err)
		}
	}
}

// failed turns the result of a move that could not be applied into an
// error, and restores the values in rc.local.
func (rc *reconciler) failed(res *Result, p pendingMove, err error) {
	var conflict *gitrepo.RefConflictError
	if errors.As(err, &conflict) {
		err = fmt.Errorf("%w (it moved while syncing; sync again)", err)
	}
	for _, u := range p.updates {
		rc.local[u.Ref] = u.Old
		if u.Old == gitrepo.ZeroOID {
			delete(rc.local, u.Ref)
		}
	}
	res.Kind, res.New, res.Fork, res.Steps = KindError, res.Old, "", 0
	res.Reason = fmt.Sprintf("%s: %v", p.what, err)
}

// one reconciles the local ref name with the remote's value remoteOID.
func (rc *reconciler) one(ctx context.Context, name, remoteOID string) Result {
	localOID := rc.local[name]
	res := Result{Ref: name, Old: localOID, New: localOID}
	fail := func(kind Kind, format string, args ...any) Result {
		res.Kind, res.Reason, res.New = kind, fmt.Sprintf(format, args...), localOID
		return res
	}
	ns, key, _ := strings.Cut(strings.TrimPrefix(name, chain.RefPrefix), "/")
	var id chain.ThreadID
	switch ns {
	case "threads", "attempts":
		parsed, err := chain.ParseThreadID(key)
		if err != nil || string(parsed) != key {
			return fail(KindInvalid, "%q is not a thread id (a ULID)", key)
		}
		id = parsed
	case "workflows":
		if err := chain.ValidWorkflowName(key); err != nil {
			return fail(KindInvalid, "%v", err)
		}
	case "leases":
		// Worker leases live only on the remote (git uwf worker reads
		// their remote-tracking copies); there is no local twin.
		res.Kind = KindUpToDate
		return res
	default:
		return fail(KindInvalid, "refs/uwf/%s/ is not a git-uwf ref namespace", ns)
	}
	if localOID == remoteOID {
		res.Kind = KindUpToDate
		return res
	}
	remote := gitobj.NewHash(remoteOID)
	var entries []*chain.Entry // a valid remote thread's commits, start first
	validate := func() (reason string, err error) {
		switch ns {
		case "threads":
			reason, entries, err = validateThread(ctx, rc.repo, id, remote)
			return reason, err
		case "workflows":
			return validateWorkflow(ctx, rc.repo, remote)
		default:
			return validateAttempts(rc.repo, remote)
		}
	}
	if localOID == "" {
		if reason, err := validate(); err != nil {
			return fail(KindError, "%v", err)
		} else if reason != "" {
			return fail(KindInvalid, "%s", reason)
		}
		rc.stage("create "+name, "uwf: sync new from "+rc.remote, gitrepo.RefUpdate{Ref: name, Old: gitrepo.ZeroOID, New: remoteOID})
		res.Kind, res.New, res.Steps = KindNew, remoteOID, rc.count(ctx, ns, entries, "", remoteOID)
		return res
	}
	local := gitobj.NewHash(localOID)
	ahead, err := rc.repo.IsAncestor(ctx, remote, local)
	if err != nil {
		return fail(KindError, "compare with %s: %v", rc.remote, err)
	}
	if ahead {
		res.Kind = KindLocalAhead
		return res
	}
	if reason, err := validate(); err != nil {
		return fail(KindError, "%v", err)
	} else if reason != "" {
		return fail(KindInvalid, "%s", reason)
	}
	behind, err := rc.repo.IsAncestor(ctx, local, remote)
	if err != nil {
		return fail(KindError, "compare with %s: %v", rc.remote, err)
	}
	if ns == "threads" {
		unlock, err := rc.repo.LockThread(id)
		if err != nil {
			return fail(KindError, "%v; sync again when it is done", err)
		}
		rc.hold(unlock) // until the move is applied
	}
	if behind {
		rc.stage("fast-forward "+name, "uwf: sync fast-forward from "+rc.remote, gitrepo.RefUpdate{Ref: name, Old: localOID, New: remoteOID})
		res.Kind, res.New, res.Steps = KindFastForward, remoteOID, rc.count(ctx, ns, entries, localOID, remoteOID)
		return res
	}
	if rc.mode == modeAdopt {
		return fail(KindDiverged, "both sides moved: run git uwf sync %s", rc.remote)
	}
	switch ns {
	case "threads":
		return rc.forkThread(ctx, res, id, local, remote)
	case "workflows":
		return rc.forkWorkflow(ctx, res, key, local, remote)
	default:
		return rc.mergeAttempts(ctx, res, id, local, remote)
	}
}

// forkThread keeps both lines of a diverged thread: the name moves to the
// remote line, the local line is saved as the derived fork thread.
func (rc *reconciler) forkThread(ctx context.Context, res Result, id chain.ThreadID, local, remote gitobj.Hash) Result {
	c, err := gitobj.GetCommit(rc.repo.Store.Storer(), local)
	if err != nil {
		res.Kind, res.Reason = KindError, fmt.Sprintf("read local tip %s: %v", local, err)
		return res
	}
	fork := ForkID(id, local.String(), c.Committer.When)
	return rc.saveAndMove(ctx, res, fork.Ref(), local, remote,
		fmt.Sprintf("thread %s diverged: remote line kept as %s, your line saved as fork %s", id, id, fork))
}

// forkWorkflow keeps both lines of a diverged workflow registry, unless
// every local version is already on the remote line.
func (rc *reconciler) forkWorkflow(ctx context.Context, res Result, name string, local, remote gitobj.Hash) Result {
	missing, err := rc.localOnlyTrees(ctx, local, remote)
	if err != nil {
		res.Kind, res.Reason = KindError, err.Error()
		return res
	}
	if missing == 0 {
		rc.stage("move "+res.Ref, "uwf: sync workflow "+name+" from "+rc.remote,
			gitrepo.RefUpdate{Ref: res.Ref, Old: local.String(), New: remote.String()})
		res.Kind, res.New = KindFastForward, remote.String()
		res.Reason = fmt.Sprintf("workflow %s: every version you registered is already on %s", name, rc.remote)
		return res
	}
	forkName := workflowForkName(name, local.String())
	return rc.saveAndMove(ctx, res, chain.WorkflowsPrefix+forkName, local, remote,
		fmt.Sprintf("workflow %s diverged: remote versions kept as %s, your %d version(s) saved as %s", name, name, missing, forkName))
}

// saveAndMove points fork at local (unless it already holds local) and
// moves res.Ref from local to remote, in one transaction.
func (rc *reconciler) saveAndMove(ctx context.Context, res Result, fork string, local, remote gitobj.Hash, reason string) Result {
	updates := []gitrepo.RefUpdate{{Ref: res.Ref, Old: local.String(), New: remote.String()}}
	switch existing := rc.local[fork]; {
	case existing == "":
		updates = append(updates, gitrepo.RefUpdate{Ref: fork, Old: gitrepo.ZeroOID, New: local.String()})
	case existing == local.String():
	default:
		kept, err := rc.repo.IsAncestor(ctx, local, gitobj.NewHash(existing))
		if err != nil || !kept {
			res.Kind = KindError
			res.Reason = fmt.Sprintf("cannot save your line: %s already exists and does not contain %s", fork, local)
			return res
		}
	}
	rc.stage(fmt.Sprintf("save %s and move %s", fork, res.Ref), "uwf: sync diverged from "+rc.remote, updates...)
	res.Kind, res.New, res.Fork, res.Reason = KindForked, remote.String(), fork, reason
	return res
}

// mergeAttempts replays the local-only attempts (newest first on the
// second-parent chain) onto the remote's attempts log, keeping each
// attempt's tree, message, signatures and thread head.
func (rc *reconciler) mergeAttempts(ctx context.Context, res Result, id chain.ThreadID, local, remote gitobj.Hash) Result {
	s := rc.repo.Store.Storer()
	var mine []*gitobj.Commit // newest first
	for c := local; !c.IsZero(); {
		shared, err := rc.repo.IsAncestor(ctx, c, remote)
		if err != nil {
			res.Kind, res.Reason = KindError, fmt.Sprintf("compare attempt %s with %s: %v", c, rc.remote, err)
			return res
		}
		if shared {
			break
		}
		commit, err := gitobj.GetCommit(s, c)
		if err != nil {
			res.Kind, res.Reason = KindError, fmt.Sprintf("read attempt %s: %v", c, err)
			return res
		}
		mine = append(mine, commit)
		c = gitobj.ZeroHash
		if len(commit.ParentHashes) > 1 {
			c = commit.ParentHashes[1]
		}
	}
	tip := remote
	for i := len(mine) - 1; i >= 0; i-- {
		old := mine[i]
		parents := []gitobj.Hash{tip}
		if len(old.ParentHashes) > 0 {
			parents = []gitobj.Hash{old.ParentHashes[0], tip}
		}
		n := &gitobj.Commit{Author: old.Author, Committer: old.Committer, Message: old.Message,
			TreeHash: old.TreeHash, ParentHashes: parents}
		obj := s.NewEncodedObject()
		if err := n.Encode(obj); err != nil {
			res.Kind, res.Reason = KindError, fmt.Sprintf("replay attempt %s: %v", old.Hash, err)
			return res
		}
		oid, err := s.SetEncodedObject(obj)
		if err != nil {
			res.Kind, res.Reason = KindError, fmt.Sprintf("replay attempt %s: %v", old.Hash, err)
			return res
		}
		tip = oid
	}
	rc.stage("move "+res.Ref, "uwf: sync attempts of "+string(id)+" from "+rc.remote,
		gitrepo.RefUpdate{Ref: res.Ref, Old: local.String(), New: tip.String()})
	res.Kind, res.New = KindMerged, tip.String()
	res.Reason = fmt.Sprintf("%d of your attempts replayed onto the %s log", len(mine), rc.remote)
	return res
}

// localOnlyTrees counts the commits on local but not on remote whose tree
// (the registered version) appears nowhere in remote's history.
func (rc *reconciler) localOnlyTrees(ctx context.Context, local, remote gitobj.Hash) (int, error) {
	theirs, err := rc.repo.Git.Output(ctx, "log", "--format=%T", remote.String())
	if err != nil {
		return 0, fmt.Errorf("list versions on %s: %w", rc.remote, err)
	}
	mine, err := rc.repo.Git.Output(ctx, "log", "--format=%T", remote.String()+".."+local.String())
	if err != nil {
		return 0, fmt.Errorf("list your versions: %w", err)
	}
	have := map[string]bool{}
	for _, t := range strings.Fields(theirs) {
		have[t] = true
	}
	missing := 0
	for _, t := range strings.Fields(mine) {
		if !have[t] {
			missing++
		}
	}
	return missing, nil
}

// count returns how many steps (thread commits after the start) or
// versions (workflow commits) lie between from (exclusive, "" for none) and
// to; 0 for attempts logs or when git cannot tell. entries, when given, are
// the validated thread's commits from its start to `to`: a thread is one
// line, so the count needs no git process.
func (rc *reconciler) count(ctx context.Context, ns string, entries []*chain.Entry, from, to string) int {
	if ns == "attempts" {
		return 0
	}
	if len(entries) > 0 && entries[len(entries)-1].Commit.String() == to {
		if from == "" {
			return len(entries) - 1 // the start is not a step
		}
		for i, e := range entries {
			if e.Commit.String() == from {
				return len(entries) - 1 - i
			}
		}
	}
	rng := to
	if from != "" {
		rng = from + ".." + to
	}
	out, err := rc.repo.Git.Output(ctx, "rev-list", "--count", "--first-parent", rng)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(out)
	if ns == "threads" && from == "" && n > 0 {
		n-- // the root holds the StartNode, not a step
	}
	return n
}
