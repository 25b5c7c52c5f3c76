package uwfsync_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

// TestPushNeverForces: B's push of a thread A already stepped further is
// rejected (atomically: B's other new thread is not pushed either), the
// remote keeps A's step, and after git uwf sync the push goes through.
func TestPushNeverForces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	th := start(t, a, "shared task")
	mustSync(t, a)
	mustFetch(t, b)
	aStep := develop(t, a, th.ID, "A's version")
	bStep := develop(t, b, th.ID, "B's version")
	other := start(t, b, "B's own task")
	mustSync(t, a)

	rep, err := uwfsync.Push(ctx, b, origin, uwfsync.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res := result(t, rep, th.ID.Ref()); res.Kind != uwfsync.KindRejected || !strings.Contains(res.Reason, "git uwf sync origin") {
		t.Errorf("push of diverged %s = %+v, want rejected with a hint to sync", th.ID, res)
	}
	if res := result(t, rep, other.ID.Ref()); res.Kind != uwfsync.KindRejected {
		t.Errorf("push of new %s = %+v, want rejected with the atomic push", other.ID, res)
	}
	if !rep.Failed() {
		t.Error("report of a rejected push does not fail")
	}
	if got := chaintest.Git(t, repos.Remote, "rev-parse", th.ID.Ref()); got != aStep.Commit.String() {
		t.Fatalf("remote %s = %s after a rejected push, want A's %s", th.ID, got, aStep.Commit)
	}
	if out := chaintest.Git(t, repos.Remote, "for-each-ref", other.ID.Ref()); out != "" {
		t.Errorf("atomic push left %s on the remote", out)
	}

	rep = mustSync(t, b)
	fork := result(t, rep, th.ID.Ref(), uwfsync.KindForked).Fork
	for ref, want := range map[string]string{th.ID.Ref(): aStep.Commit.String(), fork: bStep.Commit.String(), other.ID.Ref(): other.Head.Commit.String()} {
		if got := chaintest.Git(t, repos.Remote, "rev-parse", ref); got != want {
			t.Errorf("remote %s = %s, want %s", ref, got, want)
		}
	}
	// The remote-tracking refs record what was pushed.
	if got := chaintest.Git(t, repos.B, "rev-parse", "refs/remotes/origin/uwf/threads/"+string(other.ID)); got != other.Head.Commit.String() {
		t.Errorf("B's remote-tracking ref of %s = %s, want %s", other.ID, got, other.Head.Commit)
	}
	chaintest.Fsck(t, repos.Remote)
}

// TestInvalidRemoteRefs: refs on the remote that are not git-uwf data are
// reported invalid, never copied, and do not stop the valid ones.
func TestInvalidRemoteRefs(t *testing.T) {
	t.Parallel()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	th := start(t, a, "valid thread")
	step := develop(t, a, th.ID, "done")
	main := chaintest.Git(t, repos.A, "rev-parse", "main")
	ulid := string(chain.NewThreadID(a.Now()))
	ulid2 := string(chain.NewThreadID(a.Now()))
	merge, foreign := string(chain.NewThreadID(a.Now())), string(chain.NewThreadID(a.Now()))
	rootless := string(chain.NewThreadID(a.Now()))
	other := start(t, a, "another thread")
	tree := step.Commit.String() + "^{tree}"
	// Forged thread commits: a merge, a step on another thread's start, a
	// step with no parent (its line never reaches a StartNode).
	forged := map[string]string{
		merge:    chaintest.Git(t, repos.A, "commit-tree", tree, "-p", th.Head.Commit.String(), "-p", main, "-m", "merge"),
		foreign:  chaintest.Git(t, repos.A, "commit-tree", tree, "-p", other.Head.Commit.String(), "-m", "foreign"),
		rootless: chaintest.Git(t, repos.A, "commit-tree", tree, "-m", "rootless"),
	}
	wfCommit := chaintest.Git(t, repos.A, "rev-parse", chain.WorkflowsPrefix+"review-loop")
	bad := map[string]string{
		"refs/uwf/threads/garbage":                           main,
		"refs/uwf/threads/" + ulid:                           main,
		"refs/uwf/threads/" + strings.ToLower(string(th.ID)): th.Head.Commit.String(),
		"refs/uwf/workflows/not-a-wf":                        main,
		"refs/uwf/workflows/a-thread":                        th.Head.Commit.String(),
		"refs/uwf/attempts/" + ulid:                          main,
		"refs/uwf/attempts/not-an-id":                        wfCommit,
		"refs/uwf/attempts/" + ulid2:                         step.Commit.String(),
		"refs/uwf/elsewhere/x":                               main,
	}
	for id, oid := range forged {
		bad["refs/uwf/threads/"+id] = oid
	}
	for ref, oid := range bad {
		chaintest.Git(t, repos.A, "update-ref", ref, oid)
	}
	chaintest.Git(t, repos.A, "push", "-q", "origin", "refs/uwf/*:refs/uwf/*")

	rep := mustFetch(t, b)
	tests := []struct {
		ref    string
		kind   uwfsync.Kind
		reason string
	}{
		{th.ID.Ref(), uwfsync.KindNew, ""},
		{other.ID.Ref(), uwfsync.KindNew, ""},
		{"refs/uwf/threads/" + merge, uwfsync.KindInvalid, "2 parents"},
		{"refs/uwf/threads/" + foreign, uwfsync.KindInvalid, "belongs to start"},
		{"refs/uwf/threads/" + rootless, uwfsync.KindInvalid, "does not start with a StartNode"},
		{chain.WorkflowsPrefix + "review-loop", uwfsync.KindNew, ""},
		{"refs/uwf/threads/garbage", uwfsync.KindInvalid, "not a thread id"},
		{"refs/uwf/threads/" + ulid, uwfsync.KindInvalid, "not a git-uwf thread commit"},
		{"refs/uwf/threads/" + strings.ToLower(string(th.ID)), uwfsync.KindInvalid, "not a thread id"},
		{"refs/uwf/workflows/not-a-wf", uwfsync.KindInvalid, "pins no workflow"},
		{"refs/uwf/workflows/a-thread", uwfsync.KindInvalid, "workflow"},
		{"refs/uwf/attempts/" + ulid, uwfsync.KindInvalid, "0 parents"},
		{"refs/uwf/attempts/not-an-id", uwfsync.KindInvalid, "not a thread id"},
		{"refs/uwf/attempts/" + ulid2, uwfsync.KindInvalid, "not a failed attempt"},
		{"refs/uwf/elsewhere/x", uwfsync.KindInvalid, "not a git-uwf ref namespace"},
	}
	if len(rep.Results) != len(tests) {
		t.Errorf("fetch gave %d results, want %d: %+v", len(rep.Results), len(tests), rep.Results)
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.ref, "refs/uwf/"), func(t *testing.T) {
			res := result(t, rep, tt.ref)
			if res.Kind != tt.kind || !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("result = %+v, want %s with reason containing %q", res, tt.kind, tt.reason)
			}
			exists := chaintest.Git(t, repos.B, "for-each-ref", tt.ref) != ""
			if exists != (tt.kind == uwfsync.KindNew) {
				t.Errorf("local %s exists = %v after a %s result", tt.ref, exists, res.Kind)
			}
		})
	}
	chaintest.Fsck(t, repos.B)
}

// TestWorkflowsDiverged: two clones register versions of the same workflow.
// Identical versions converge silently; different ones keep the remote's
// line under the name and save the local one under <name>-local-<hex>.
func TestWorkflowsDiverged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		descA     string
		descB     string
		wantKind  uwfsync.Kind
		wantSaved bool
	}{
		{"same version registered twice", "", "", uwfsync.KindFastForward, false},
		{"different versions", "version from A", "version from B", uwfsync.KindForked, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repos := synctest.ReposAndRemote(t)
			a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
			register(t, a, tt.descA)
			chaintest.Git(t, repos.A, "commit", "-q", "--allow-empty", "-m", "let the clock move")
			register(t, b, tt.descB)
			ref := chain.WorkflowsPrefix + "review-loop"
			bTip := chaintest.Git(t, repos.B, "rev-parse", ref)
			mustSync(t, a)
			rep := mustSync(t, b)
			res := result(t, rep, ref)
			aTip := chaintest.Git(t, repos.A, "rev-parse", ref)
			if aTip == bTip {
				t.Fatal("both clones made the same registration commit; the test needs two")
			}
			if res.Kind != tt.wantKind || res.New != aTip {
				t.Fatalf("sync of %s = %+v, want %s to A's %s", ref, res, tt.wantKind, aTip)
			}
			if (res.Fork != "") != tt.wantSaved {
				t.Fatalf("saved line = %q, want saved %v", res.Fork, tt.wantSaved)
			}
			if tt.wantSaved {
				if want := chain.WorkflowsPrefix + "review-loop-local-" + bTip[:8]; res.Fork != want {
					t.Errorf("fork = %s, want %s", res.Fork, want)
				}
				if got := chaintest.Git(t, repos.Remote, "rev-parse", res.Fork); got != bTip {
					t.Errorf("remote %s = %s, want B's %s", res.Fork, got, bTip)
				}
				wfs, err := b.Workflows(context.Background())
				if err != nil || len(wfs) != 2 || wfs[1].Description != "version from B" {
					t.Errorf("B's registry = %+v, %v; want A's version and B's saved one", wfs, err)
				}
			}
			mustSync(t, a)
			if changed := mustSync(t, b).Changed(); len(changed) != 0 {
				t.Errorf("second sync changed %+v", changed)
			}
			if ra, rb := refs(t, repos.A), refs(t, repos.B); ra != rb {
				t.Errorf("refs differ:\nA:\n%s\nB:\n%s", ra, rb)
			}
		})
	}
}

// TestAttemptsMerged: failed attempts recorded in both clones on the same
// thread head end up in one log on both sides.
func TestAttemptsMerged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	th := start(t, a, "flaky task")
	mustSync(t, a)
	mustFetch(t, b)
	record := func(r *chain.Repo, msg string) {
		t.Helper()
		tr, err := r.Thread(ctx, th.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.RecordAttempt(ctx, tr, chain.Attempt{Role: "developer", Agent: "test", Error: msg, Phase: "agent"}); err != nil {
			t.Fatal(err)
		}
	}
	record(a, "A: agent crashed")
	record(b, "B: timed out")
	record(b, "B: no frontmatter")
	mustSync(t, a)
	rep := mustSync(t, b)
	res := result(t, rep, th.ID.AttemptsRef(), uwfsync.KindMerged)
	if !strings.Contains(res.Reason, "2 of your attempts") {
		t.Errorf("merge reason = %q, want 2 replayed attempts", res.Reason)
	}
	mustSync(t, a)
	for name, r := range map[string]*chain.Repo{"A": a, "B": b} {
		tr, err := r.Thread(ctx, th.ID)
		if err != nil {
			t.Fatal(err)
		}
		list, err := r.Attempts(ctx, tr, true)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, fa := range list {
			got = append(got, fa.Node.Error)
		}
		if want := "B: no frontmatter|B: timed out|A: agent crashed"; strings.Join(got, "|") != want {
			t.Errorf("%s attempts = %q, want %q", name, strings.Join(got, "|"), want)
		}
	}
	if changed := mustSync(t, b).Changed(); len(changed) != 0 {
		t.Errorf("second sync changed %+v", changed)
	}
	for _, dir := range []string{repos.A, repos.B, repos.Remote} {
		chaintest.Fsck(t, dir)
	}
}

// TestPushRemoteHookRejects: a remote that declines the push reports
// rejected with git's reason and no advice to sync.
func TestPushRemoteHookRejects(t *testing.T) {
	t.Parallel()
	repos := synctest.ReposAndRemote(t)
	a := chaintest.Open(t, repos.A)
	th := start(t, a, "hooked")
	hook := repos.Remote + "/hooks/pre-receive"
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho no threads here >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := uwfsync.Push(context.Background(), a, origin, uwfsync.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := result(t, rep, th.ID.Ref())
	if res.Kind != uwfsync.KindRejected || !strings.Contains(res.Reason, "remote rejected") || strings.Contains(res.Reason, "sync") {
		t.Errorf("push to a declining remote = %+v", res)
	}
	if out := chaintest.Git(t, repos.Remote, "for-each-ref", "refs/uwf/"); out != "" {
		t.Errorf("remote holds %s after a declined push", out)
	}
}
