package uwfsync

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitcli"
)

// Fetch downloads remote's refs/uwf/* into refs/remotes/<remote>/uwf/*
// (git fetch --no-tags --prune; the "+" applies to that mirror namespace
// only) and then Reconciles them into the local refs/uwf/*.
func Fetch(ctx context.Context, repo *chain.Repo, remote string) (*Report, error) {
	if err := CheckRemote(ctx, repo, remote); err != nil {
		return nil, err
	}
	if _, err := repo.Git.Run(ctx, nil, "fetch", "--no-tags", "--no-write-fetch-head", "--prune",
		remote, fetchRefspec(remote)); err != nil {
		return nil, fmt.Errorf("fetch git-uwf refs from %s: %w", remote, err)
	}
	return reconcile(ctx, repo, remote, modeSync)
}

// PushOptions configure Push.
type PushOptions struct {
	// DryRun asks git what would be pushed without sending anything.
	DryRun bool
}

// Push sends the local threads, workflows and attempts to remote with
// git push --atomic and refspecs without "+": the remote refuses any update
// that is not a fast-forward, so nothing on it is ever overwritten. Each
// ref is reported pushed, up-to-date or rejected (run Sync, then push
// again); with --atomic one rejection leaves every ref unpushed. Afterwards
// refs/remotes/<remote>/uwf/* record what the remote now holds.
func Push(ctx context.Context, repo *chain.Repo, remote string, opts PushOptions) (*Report, error) {
	if err := CheckRemote(ctx, repo, remote); err != nil {
		return nil, err
	}
	rep := &Report{Remote: remote, Results: []Result{}}
	namespaces := []string{chain.ThreadsPrefix, chain.WorkflowsPrefix, chain.AttemptsPrefix}
	local, err := repo.Git.ForEachRef(ctx, namespaces...)
	if err != nil {
		return nil, fmt.Errorf("list local git-uwf refs: %w", err)
	}
	if len(local) == 0 {
		return rep, nil
	}
	tracking, err := trackingMap(ctx, repo, remote)
	if err != nil {
		return nil, err
	}
	localOID := map[string]string{}
	for _, ref := range local {
		localOID[ref.Name] = ref.OID
	}
	args := []string{"push", "--atomic", "--porcelain"}
	if opts.DryRun {
		args = append(args, "--dry-run")
	}
	args = append(args, remote)
	for _, ns := range namespaces {
		if slices.ContainsFunc(local, func(r gitcli.RefEntry) bool { return strings.HasPrefix(r.Name, ns) }) {
			args = append(args, ns+"*:"+ns+"*")
		}
	}
	out, pushErr := repo.Git.Run(ctx, nil, args...)
	lines := parsePorcelain(string(out))
	if len(lines) == 0 {
		if pushErr != nil {
			return nil, fmt.Errorf("push git-uwf refs to %s: %w", remote, pushErr)
		}
		return nil, fmt.Errorf("push git-uwf refs to %s: git reported no ref", remote)
	}
	var moved []gitcli.RefUpdate
	for _, l := range lines {
		res := Result{Ref: l.dst, Old: tracking[l.dst], New: localOID[l.src]}
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
		rep.add(res)
		if !opts.DryRun && (res.Kind == KindPushed || res.Kind == KindUpToDate) && res.New != "" {
			moved = append(moved, gitcli.RefUpdate{Ref: trackingPrefix(remote) + strings.TrimPrefix(l.dst, chain.RefPrefix), New: res.New})
		}
	}
	if err := recordPushed(ctx, repo, remote, moved); err != nil {
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
func recordPushed(ctx context.Context, repo *chain.Repo, remote string, moved []gitcli.RefUpdate) error {
	if len(moved) == 0 {
		return nil
	}
	now, err := trackingMap(ctx, repo, remote)
	if err != nil {
		return err
	}
	var updates []gitcli.RefUpdate
	for _, u := range moved {
		cur := now[chain.RefPrefix+strings.TrimPrefix(u.Ref, trackingPrefix(remote))]
		if cur == u.New {
			continue
		}
		u.Old = cur
		if u.Old == "" {
			u.Old = gitcli.ZeroOID
		}
		updates = append(updates, u)
	}
	if err := repo.Git.UpdateRefs(ctx, "uwf: pushed to "+remote, updates...); err != nil {
		return fmt.Errorf("record pushed refs in %s: %w", trackingPrefix(remote), err)
	}
	return nil
}

// trackingMap returns the remote-tracking values keyed by local ref name.
func trackingMap(ctx context.Context, repo *chain.Repo, remote string) (map[string]string, error) {
	refs, err := repo.Git.ForEachRef(ctx, trackingPrefix(remote))
	if err != nil {
		return nil, fmt.Errorf("list remote-tracking refs of %s: %w", remote, err)
	}
	m := make(map[string]string, len(refs))
	for _, r := range refs {
		m[chain.RefPrefix+strings.TrimPrefix(r.Name, trackingPrefix(remote))] = r.OID
	}
	return m, nil
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
func Sync(ctx context.Context, repo *chain.Repo, remote string, opts PushOptions) (*Report, error) {
	rep, err := Fetch(ctx, repo, remote)
	if err != nil {
		return rep, err
	}
	pushed, err := Push(ctx, repo, remote, opts)
	if pushed != nil {
		rep.Results = append(rep.Results, pushed.Results...)
	}
	if err != nil {
		return rep, err
	}
	return rep, nil
}
