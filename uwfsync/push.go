package uwfsync

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// Fetch brings remote's refs/uwf/* into refs/remotes/<remote>/uwf/* (only
// the refs that moved there are fetched; the "+" applies to that mirror
// namespace only; refs gone from the remote are pruned) and then Reconciles
// them into the local refs/uwf/*.
func Fetch(ctx context.Context, repo *chain.Repo, remote string) (*Report, error) {
	if err := CheckRemote(ctx, repo, remote); err != nil {
		return nil, err
	}
	st, err := fetchState(ctx, repo, remote)
	if err != nil {
		return nil, err
	}
	// Many new remote-tracking refs are packed while the threads they
	// point at are checked; packRefs below waits for that packing.
	startPacking(ctx, repo, st)
	rep, err := reconcileState(ctx, repo, remote, modeSync, st)
	if err == nil {
		_ = saveAdopted(repo, remote, st, rep)
	}
	packRefs(ctx, repo, st)
	return rep, err
}

// PushOptions configure Push.
type PushOptions struct {
	// DryRun asks git what would be pushed without sending anything.
	DryRun bool
}

// pushNamespaces returns the local namespaces Push sends.
func pushNamespaces() []string {
	return []string{chain.ThreadsPrefix, chain.WorkflowsPrefix, chain.AttemptsPrefix}
}

// Push sends the local threads, workflows and attempts to remote with
// git push --atomic and refspecs without "+": the remote refuses any update
// that is not a fast-forward, so nothing on it is ever overwritten. Only
// refs whose value differs from their remote-tracking ref are sent (the
// others are what the remote held when this clone last fetched or pushed;
// git uwf sync fetches first, so a stale view only delays a push to the
// next sync). Each sent ref is reported pushed, up-to-date or rejected (run
// Sync, then push again); with --atomic one rejection leaves every ref
// unpushed. Afterwards refs/remotes/<remote>/uwf/* record what the remote
// now holds.
func Push(ctx context.Context, repo *chain.Repo, remote string, opts PushOptions) (*Report, error) {
	if err := CheckRemote(ctx, repo, remote); err != nil {
		return nil, err
	}
	st, err := listState(ctx, repo, remote)
	if err != nil {
		return nil, err
	}
	rep, err := push(ctx, repo, remote, opts, st)
	packRefs(ctx, repo, st)
	return rep, err
}

// push sends the refs of st.local that differ from st.tracking.
func push(ctx context.Context, repo *chain.Repo, remote string, opts PushOptions, st *refState) (*Report, error) {
	rep := &Report{Remote: remote, Results: []Result{}}
	namespaces := pushNamespaces()
	var send []string
	for name, oid := range st.local {
		if st.tracking[name] != oid && slices.ContainsFunc(namespaces, func(ns string) bool { return strings.HasPrefix(name, ns) }) {
			send = append(send, name)
		}
	}
	if len(send) == 0 {
		return rep, nil
	}
	slices.Sort(send)
	args := []string{"push", "--atomic", "--porcelain"}
	if opts.DryRun {
		args = append(args, "--dry-run")
	}
	args = append(args, remote)
	if len(send) > maxExplicitRefs {
		for _, ns := range namespaces {
			args = append(args, ns+"*:"+ns+"*")
		}
	} else {
		for _, name := range send {
			args = append(args, name+":"+name)
		}
	}
	out, pushErr := trackingGit(repo).Run(ctx, nil, args...)
	lines := parsePorcelain(string(out))
	if len(lines) == 0 {
		if pushErr != nil {
			return nil, fmt.Errorf("push git-uwf refs to %s: %w", remote, pushErr)
		}
		return nil, fmt.Errorf("push git-uwf refs to %s: git reported no ref", remote)
	}
	var moved []gitrepo.RefUpdate
	for _, l := range lines {
		res := Result{Ref: l.dst, Old: st.tracking[l.dst], New: st.local[l.src]}
		switch l.flag {
		case '=':
			res.Kind = KindUpToDate
		case ' ', '*', '+':
			res.Kind = KindPushed
		case '!':
			res.Kind, res.New = KindRejected, res.Old
			switch summary := strings.TrimSpace(l.summary); {
			case strings.Contains(summary, "atomic push failed"):
				res.Reason = "not pushed: another ref was rejected (atomic push)"
			case strings.Contains(summary, "fetch first"), strings.Contains(summary, "non-fast-forward"):
				res.Reason = summary + ": " + remote + " has steps you do not have; run git uwf sync " + remote
			default: // e.g. "[remote rejected] (pre-receive hook declined)"
				res.Reason = summary
			}
		default:
			res.Kind, res.Reason = KindError, "git push: "+strings.TrimSpace(l.summary)
		}
		if res.Kind == KindUpToDate && st.tracking[l.dst] == res.New {
			continue // sent by the wildcard, already known to be there
		}
		rep.add(res)
		if !opts.DryRun && (res.Kind == KindPushed || res.Kind == KindUpToDate) && res.New != "" {
			moved = append(moved, gitrepo.RefUpdate{Ref: trackingRef(remote, l.dst), New: res.New})
		}
	}
	if err := recordPushed(ctx, repo, remote, moved, st); err != nil {
		return rep, err
	}
	if pushErr != nil && !rep.Failed() {
		return rep, fmt.Errorf("push git-uwf refs to %s: %w", remote, pushErr)
	}
	return rep, nil
}

// recordPushed moves the remote-tracking refs to what the remote now holds.
// git push may already have done it (when remote.<r>.fetch maps refs/uwf/*),
// so each CAS starts from the value read now.
func recordPushed(ctx context.Context, repo *chain.Repo, remote string, moved []gitrepo.RefUpdate, st *refState) error {
	if len(moved) == 0 {
		return nil
	}
	names := make([]string, len(moved))
	for i, u := range moved {
		names[i] = u.Ref
	}
	now, err := readRefs(ctx, repo, names)
	if err != nil {
		return fmt.Errorf("read remote-tracking refs of %s: %w", remote, err)
	}
	var updates []gitrepo.RefUpdate
	for _, u := range moved {
		cur := now[u.Ref]
		if cur == u.New {
			continue
		}
		u.Old = cur
		if u.Old == "" {
			u.Old = gitrepo.ZeroOID
		}
		updates = append(updates, u)
	}
	if err := trackingGit(repo).UpdateRefs(ctx, "uwf: pushed to "+remote, updates...); err != nil {
		return fmt.Errorf("record pushed refs in %s: %w", trackingPrefix(remote), err)
	}
	st.written += len(moved)
	for _, u := range moved {
		name := chain.RefPrefix + strings.TrimPrefix(u.Ref, trackingPrefix(remote))
		if _, ok := st.tracking[name]; !ok {
			st.trackingOrder = append(st.trackingOrder, name)
		}
		st.tracking[name] = u.New
	}
	slices.Sort(st.trackingOrder)
	return nil
}

// porcelainLine is one ref line of git push --porcelain:
// "<flag>\t<src>:<dst>\t<summary>".
type porcelainLine struct {
	flag     byte
	src, dst string
	summary  string
}

// parsePorcelain extracts the ref lines of git push --porcelain output,
// skipping "To <url>" and "Done".
func parsePorcelain(out string) []porcelainLine {
	var lines []porcelainLine
	for _, line := range strings.Split(out, "\n") {
		if len(line) < 2 || line[1] != '\t' {
			continue
		}
		parts := strings.SplitN(line[2:], "\t", 2)
		src, dst, ok := strings.Cut(parts[0], ":")
		if !ok {
			continue
		}
		l := porcelainLine{flag: line[0], src: src, dst: dst}
		if len(parts) == 2 {
			l.summary = parts[1]
		}
		lines = append(lines, l)
	}
	return lines
}

// Sync is Fetch (which Reconciles) followed by Push: afterwards the remote
// and this clone hold the same threads, and every diverged line is kept on
// both as a fork. Its report lists the fetch results, then the push results.
//
// The refs that already differ from their remote-tracking refs are pushed
// while the remote is being listed, since that is what the push after
// reconcile would send in the usual case of new local steps. The push is
// never forced and is atomic, so this is safe whatever the remote holds: if
// anyone moved one of those refs on the remote, the remote refuses the whole
// push, its results are dropped, and the usual push after reconcile sends
// the reconciled refs (and reports any rejection). A push after reconcile
// runs only when something still differs. If a teammate pushes between the
// fetch and that push, the remote refuses it the same way, the report says
// rejected, and the next sync fetches their steps and forks as usual.
func Sync(ctx context.Context, repo *chain.Repo, remote string, opts PushOptions) (*Report, error) {
	if err := CheckRemote(ctx, repo, remote); err != nil {
		return nil, err
	}
	ls := startLsRemote(ctx, repo.Git, remote)
	st, err := listState(ctx, repo, remote)
	if err != nil {
		_, _ = ls.wait()
		return nil, err
	}
	var early *Report
	if !opts.DryRun {
		if early, err = push(ctx, repo, remote, opts, st); err != nil {
			_, _ = ls.wait()
			return early, err
		}
		if early.Failed() {
			early = nil
		}
	}
	// Once refs were pushed, a failure still reports them.
	fail := func(err error) (*Report, error) {
		if early != nil && len(early.Results) > 0 {
			return early, err
		}
		return nil, err
	}
	theirs, err := ls.wait()
	if err != nil {
		return fail(err)
	}
	if early != nil {
		// The listing may predate the push: a ref the remote still listed
		// at its old value now holds what was pushed.
		for _, res := range early.Results {
			if (res.Kind == KindPushed || res.Kind == KindUpToDate) && theirs[res.Ref] == res.Old {
				theirs[res.Ref] = res.New
			}
		}
	}
	if err := applyRemote(ctx, repo, remote, st, theirs); err != nil {
		return fail(err)
	}
	startPacking(ctx, repo, st) // as in Fetch
	rep, err := reconcileState(ctx, repo, remote, modeSync, st)
	waitPacking(st) // no packing of the fetch goes on beside the push
	if rep != nil && early != nil {
		rep.Results = append(rep.Results, early.Results...)
	}
	if err != nil {
		return rep, err
	}
	pushed, err := push(ctx, repo, remote, opts, st)
	if pushed != nil {
		rep.Results = append(rep.Results, pushed.Results...)
	}
	packRefs(ctx, repo, st)
	if err != nil {
		return rep, err
	}
	_ = saveAdopted(repo, remote, st, rep)
	return rep, nil
}
