package workflow_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// TestRemoveRefusedWhileRunning: a workflow one of whose threads is being
// stepped (its lock is held) is not removed without --force; a thread
// being stepped is not removed at all, and neither are the others named
// with it.
func TestRemoveRefusedWhileRunning(t *testing.T) {
	dir := newRepo(t)
	putReviewLoop(t, dir)
	var started []struct{ Thread chain.ThreadID }
	for _, p := range []string{"one", "two"} {
		var s struct{ Thread chain.ThreadID }
		if err := json.Unmarshal([]byte(mustRun(t, dir, "thread", "start", "review-loop", "-p", p, "--format", "json")), &s); err != nil {
			t.Fatal(err)
		}
		started = append(started, s)
	}
	repo := chaintest.Open(t, dir)
	unlock, err := repo.LockThread(started[0].Thread)
	if err != nil {
		t.Fatal(err)
	}
	before := uwfRefs(t, dir)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"workflow", "remove", "review-loop"}, 1, `workflow "review-loop" has 1 running thread(s) (` + string(started[0].Thread) + `)`},
		{[]string{"thread", "remove", string(started[1].Thread), string(started[0].Thread)}, 75, "is running, not removed"},
		{[]string{"workflow", "rollback", "review-loop"}, 1, "has no earlier version"},
		{[]string{"workflow", "rollback", "review-loop", "AB"}, 1, `"AB" is not a version of workflow "review-loop"`},
		{[]string{"workflow", "rollback"}, 2, "want <name> [<alias>]"},
	}
	for _, tt := range tests {
		r := run(t, dir, tt.args...)
		if r.code != tt.code || !strings.Contains(r.err, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), r.code, r.err, tt.code, tt.want)
		}
	}
	if after := uwfRefs(t, dir); after != before {
		t.Errorf("refused commands changed refs:\nbefore %s\nafter  %s", before, after)
	}
	out := mustRun(t, dir, "workflow", "remove", "review-loop", "--force", "--format", "json")
	var rm struct {
		Ref     string
		Running []string
	}
	if err := json.Unmarshal([]byte(out), &rm); err != nil || rm.Ref != "refs/uwf/workflows/review-loop" || len(rm.Running) != 1 {
		t.Errorf("remove --force: %v %+v\n%s", err, rm, out)
	}
	unlock()
	// Both threads still read (they pin their version) and can be removed now.
	mustRun(t, dir, "thread", "show", string(started[0].Thread))
	out = mustRun(t, dir, "thread", "remove", string(started[0].Thread), string(started[1].Thread))
	if strings.Count(out, "removed refs/uwf/threads/") != 2 {
		t.Errorf("thread remove:\n%s", out)
	}
	if refs := uwfRefs(t, dir); refs != "" {
		t.Errorf("refs left: %s", refs)
	}
}
