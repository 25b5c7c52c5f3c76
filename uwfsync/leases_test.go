package uwfsync_test

import (
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

// Worker leases on the remote (refs/uwf/leases/*) are fetched as
// remote-tracking refs only: no local twin, no invalid result.
func TestFetchKeepsLeasesRemoteOnly(t *testing.T) {
	t.Parallel()
	repos := synctest.ReposAndRemote(t)
	a := chaintest.Open(t, repos.A)
	th := start(t, a, "leased")
	mustSync(t, a)
	tree := chaintest.Git(t, repos.A, "hash-object", "-t", "tree", "-w", "/dev/null")
	lease := chaintest.Git(t, repos.A, "commit-tree", strings.TrimSpace(tree), "-m", "uwf lease")
	chaintest.Git(t, repos.A, "push", "-q", origin, strings.TrimSpace(lease)+":refs/uwf/leases/"+string(th.ID))

	b := chaintest.Open(t, repos.B)
	rep := mustFetch(t, b)
	if rep.Failed() {
		t.Fatalf("fetch with a lease on the remote failed: %+v", rep.Results)
	}
	for _, res := range rep.Results {
		if res.Kind == uwfsync.KindInvalid {
			t.Errorf("lease reported invalid: %+v", res)
		}
	}
	if got := refs(t, repos.B); strings.Contains(got, "refs/uwf/leases/") {
		t.Errorf("a local lease ref was created:\n%s", got)
	}
	if got := chaintest.Git(t, repos.B, "for-each-ref", "refs/remotes/origin/uwf/leases/"); !strings.Contains(got, string(th.ID)) {
		t.Errorf("the lease was not fetched as a remote-tracking ref: %q", got)
	}
}
