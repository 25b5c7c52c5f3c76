package uwfsync

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// KindDeleted: the ref was deleted on the remote (DeleteRemote).
const KindDeleted Kind = "deleted"

// DeleteRemote deletes the named refs/uwf/* refs on remote in one atomic
// push. Each deletion is a compare-and-swap: it carries a lease on the
// value the remote was just listed with, so a ref someone moved in between
// is refused and, the push being atomic, nothing is deleted. Refs the
// remote does not have are reported up-to-date. The remote-tracking copies
// of deleted refs are deleted too.
func DeleteRemote(ctx context.Context, repo *chain.Repo, remote string, names []string) (*Report, error) {
	if err := CheckRemote(ctx, repo, remote); err != nil {
		return nil, err
	}
	theirs, err := lsRemote(ctx, repo.Git, remote)
	if err != nil {
		return nil, err
	}
	rep := &Report{Remote: remote, Results: []Result{}}
	args := []string{"push", "--atomic", "--porcelain"}
	var del []string
	for _, name := range names {
		if !strings.HasPrefix(name, chain.RefPrefix) {
			return nil, fmt.Errorf("delete %s on %s: not a git-uwf ref", name, remote)
		}
		oid, ok := theirs[name]
		if !ok {
			rep.add(Result{Ref: name, Kind: KindUpToDate, Reason: remote + " does not have it"})
			continue
		}
		args = append(args, "--force-with-lease="+name+":"+oid)
		del = append(del, name)
	}
	if len(del) == 0 {
		return rep, nil
	}
	args = append(args, remote)
	for _, name := range del {
		args = append(args, ":"+name)
	}
	out, pushErr := repo.Git.Run(ctx, nil, args...)
	lines := parsePorcelain(string(out))
	if len(lines) == 0 && pushErr != nil {
		return nil, fmt.Errorf("delete git-uwf refs on %s: %w", remote, pushErr)
	}
	var tracking []gitrepo.RefUpdate
	for _, l := range lines {
		res := Result{Ref: l.dst, Old: theirs[l.dst], New: theirs[l.dst]}
		switch l.flag {
		case '-':
			res.Kind, res.New = KindDeleted, ""
			tracking = append(tracking, gitrepo.RefUpdate{Ref: trackingRef(remote, l.dst), New: gitrepo.ZeroOID})
		case '!':
			res.Kind, res.Reason = KindRejected, strings.TrimSpace(l.summary)
			if strings.Contains(res.Reason, "stale info") {
				res.Reason += ": " + remote + " moved it since it was listed; run git uwf sync " + remote + " and try again"
			}
		default:
			res.Kind, res.Reason = KindError, "git push: "+strings.TrimSpace(l.summary)
		}
		rep.add(res)
	}
	if len(tracking) > 0 {
		names := make([]string, len(tracking))
		for i, u := range tracking {
			names[i] = u.Ref
		}
		now, err := readRefs(ctx, repo, names)
		if err != nil {
			return rep, err
		}
		tracking = slices.DeleteFunc(tracking, func(u gitrepo.RefUpdate) bool { return now[u.Ref] == "" })
		for i := range tracking {
			tracking[i].Old = now[tracking[i].Ref]
		}
		if err := repo.Git.UpdateRefs(ctx, "uwf: deleted on "+remote, tracking...); err != nil {
			return rep, fmt.Errorf("delete remote-tracking refs of %s: %w", remote, err)
		}
	}
	if pushErr != nil && !rep.Failed() {
		return rep, fmt.Errorf("delete git-uwf refs on %s: %w", remote, pushErr)
	}
	return rep, nil
}
