package thread

import (
	"context"
	"fmt"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/engine/worker"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// checkLease refuses to step a thread that a worker holds on the default
// remote (as last fetched): stepping it here would race the worker and
// end in a fork. Without a default remote there is nothing to check. The
// lease is remote data: its worker name is printed escaped, and an expiry
// beyond worker.MaxLeaseAhead counts as expired (see Lease.Expired).
func checkLease(ctx context.Context, f *cmdutil.Factory, repo *chain.Repo, id chain.ThreadID) error {
	if !worker.MayBeLeased(repo, id) {
		return nil // no lease fetched from any remote: no config lookup
	}
	remote, err := uwfsync.DefaultRemote(ctx, repo)
	if err != nil || remote == "" {
		// Workers usually serve the remote a clone came from.
		remote = "origin"
	}
	l, err := worker.ReadLease(ctx, repo, remote, id)
	if err != nil || l == nil || l.Expired(f.Now()) {
		return nil
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitLocked, Err: fmt.Errorf(
		"thread %s is leased on %s by worker %s until %s (claimed at head %.12s); let the worker step it, or wait for the lease to end",
		id, remote, l.PrintableWorker(), l.Expires.UTC().Format("15:04:05 MST"), l.Head)}
}
