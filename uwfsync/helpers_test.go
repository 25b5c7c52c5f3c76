package uwfsync_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/uwfsync"
)

const origin = "origin"

// workflow loads testdata/review-loop.yaml, with the description replaced
// when desc is not empty (a different version of the same workflow).
func workflow(t *testing.T, desc string) *moderator.Workflow {
	t.Helper()
	b, err := os.ReadFile("testdata/review-loop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if desc != "" {
		text = strings.Replace(text, "developer and reviewer until approved", desc, 1)
	}
	return chaintest.Workflow(t, "review-loop", text)
}

// register registers the workflow in r.
func register(t *testing.T, r *chain.Repo, desc string) *chain.WorkflowInfo {
	t.Helper()
	info, _, err := r.RegisterWorkflow(context.Background(), workflow(t, desc))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// start registers the workflow and starts a thread.
func start(t *testing.T, r *chain.Repo, prompt string) *chain.Thread {
	t.Helper()
	th, err := r.StartThread(context.Background(), register(t, r, ""), prompt, "/")
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func develop(t *testing.T, r *chain.Repo, id chain.ThreadID, summary string) *chain.Entry {
	t.Helper()
	return chaintest.Step(t, r, id, "developer", map[string]any{"$status": "review_needed", "summary": summary}, "# "+summary+"\n")
}

func review(t *testing.T, r *chain.Repo, id chain.ThreadID, status, comments string) *chain.Entry {
	t.Helper()
	return chaintest.Step(t, r, id, "reviewer", map[string]any{"$status": status, "comments": comments}, comments+"\n")
}

func mustSync(t *testing.T, r *chain.Repo) *uwfsync.Report {
	t.Helper()
	rep, err := uwfsync.Sync(context.Background(), r, origin, uwfsync.PushOptions{})
	if err != nil {
		t.Fatalf("sync %s: %v", r.Info.CommonDir, err)
	}
	if rep.Failed() {
		t.Fatalf("sync %s failed: %+v", r.Info.CommonDir, rep.Results)
	}
	return rep
}

func mustFetch(t *testing.T, r *chain.Repo) *uwfsync.Report {
	t.Helper()
	rep, err := uwfsync.Fetch(context.Background(), r, origin)
	if err != nil {
		t.Fatalf("fetch %s: %v", r.Info.CommonDir, err)
	}
	return rep
}

// result returns the result for ref in rep (the first one when a sync
// reports it twice: fetch, then push).
func result(t *testing.T, rep *uwfsync.Report, ref string, kinds ...uwfsync.Kind) uwfsync.Result {
	t.Helper()
	for _, res := range rep.Results {
		if res.Ref == ref && (len(kinds) == 0 || slices.Contains(kinds, res.Kind)) {
			return res
		}
	}
	t.Fatalf("no %v result for %s in %+v", kinds, ref, rep.Results)
	return uwfsync.Result{}
}

// refs lists refs/uwf/* of dir as "oid name" lines.
func refs(t *testing.T, dir string) string {
	t.Helper()
	return chaintest.Git(t, dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/uwf/")
}

// forgeThread points a new thread ref in dir at a copy of ref's head whose
// message edit rewrites, and returns the new thread.
func forgeThread(t *testing.T, r *chain.Repo, dir, ref string, edit func(string) string) chain.ThreadID {
	t.Helper()
	head := chaintest.Git(t, dir, "rev-parse", ref)
	msg := chaintest.Git(t, dir, "log", "-1", "--format=%B", head)
	c := chaintest.Git(t, dir, "commit-tree", head+"^{tree}", "-p", head+"^", "-m", edit(msg))
	id := chain.NewThreadID(r.Now())
	chaintest.Git(t, dir, "update-ref", id.Ref(), c)
	return id
}

// forgeStep moves thread id's ref in dir to a copy of step whose parent is
// parent and whose message edit rewrites, and force-pushes it to origin.
func forgeStep(t *testing.T, dir string, id chain.ThreadID, step gitobj.Hash, parent string, edit func(string) string) {
	t.Helper()
	msg := chaintest.Git(t, dir, "log", "-1", "--format=%B", step.String())
	forged := chaintest.Git(t, dir, "commit-tree", step.String()+"^{tree}", "-p", parent, "-m", edit(msg))
	chaintest.Git(t, dir, "update-ref", id.Ref(), forged)
	chaintest.Git(t, dir, "push", "-q", "-f", "origin", id.Ref())
}

// wantResult is what a fetch must report of a thread.
type wantResult struct {
	id     chain.ThreadID
	kind   uwfsync.Kind
	reason string // contained in the result's reason
}

// wantResults checks rep's result for each of wants, and that the thread's
// ref exists in dir exactly when it came in as new.
func wantResults(t *testing.T, rep *uwfsync.Report, dir string, wants []wantResult) {
	t.Helper()
	for _, w := range wants {
		res := result(t, rep, w.id.Ref())
		if res.Kind != w.kind || !strings.Contains(res.Reason, w.reason) {
			t.Errorf("%s: result %+v, want %s with reason containing %q", w.id, res, w.kind, w.reason)
		}
		exists := chaintest.Git(t, dir, "for-each-ref", w.id.Ref()) != ""
		if exists != (w.kind == uwfsync.KindNew) {
			t.Errorf("%s exists = %v after a %s result", w.id, exists, res.Kind)
		}
	}
}
