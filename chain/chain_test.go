package chain_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

const loopYAML = `name: review-loop
description: developer and reviewer until approved
roles:
  developer:
    goal: Write the code.
    frontmatter:
      type: object
      properties:
        $status: {const: review_needed}
        summary: {type: string}
        branch: {type: string}
      required: [$status, summary]
  reviewer:
    goal: Review the code.
    frontmatter:
      type: object
      properties:
        $status: {enum: [approved, rejected]}
        comments: {type: string}
      required: [$status]
graph:
  $START:
    _: {role: developer, prompt: "Implement the task."}
  developer:
    review_needed: {role: reviewer, prompt: "Review: {{summary}}"}
  reviewer:
    rejected: {role: developer, prompt: "Fix: {{comments}}"}
    approved: {role: $END, prompt: "Done."}
`

const conditionsYAML = `name: solve-issue
roles:
  developer:
    frontmatter:
      type: object
      properties:
        summary: {type: string}
      required: [summary]
  reviewer:
    frontmatter:
      type: object
      properties:
        approved: {type: boolean}
        comments: {type: string}
      required: [approved]
conditions:
  notApproved:
    description: the reviewer rejected
    expression: "$last('reviewer').approved = false"
graph:
  $START:
    - {role: developer, prompt: "Implement it."}
  developer:
    - {role: reviewer, prompt: "Review it."}
  reviewer:
    - {role: developer, condition: notApproved, prompt: "Fix it."}
    - {role: $END, prompt: "Approved."}
`

func setup(t *testing.T) (string, *chain.Repo, *chain.WorkflowInfo) {
	t.Helper()
	dir := chaintest.InitRepo(t)
	r := chaintest.Open(t, dir)
	info, changed, err := r.RegisterWorkflow(context.Background(), chaintest.Workflow(t, "review-loop", loopYAML))
	if err != nil || !changed {
		t.Fatalf("register: changed=%v err=%v", changed, err)
	}
	return dir, r, info
}

// startThread starts a thread of the review-loop workflow (setup) in a new
// repository and returns the repository's directory, the Repo and the
// thread.
func startThread(t *testing.T) (string, *chain.Repo, *chain.Thread) {
	t.Helper()
	dir, r, info := setup(t)
	th, err := r.StartThread(context.Background(), info, "task", dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, r, th
}

// reviewRound appends one round of the review loop to thread id: a
// developer's step with summary and body, then the reviewer's rejection.
// It returns the developer's entry.
func reviewRound(t *testing.T, r *chain.Repo, id chain.ThreadID, summary, body string) *chain.Entry {
	t.Helper()
	e := chaintest.Step(t, r, id, "developer", map[string]any{"$status": "review_needed", "summary": summary}, body)
	chaintest.Step(t, r, id, "reviewer", map[string]any{"$status": "rejected", "comments": "no"}, "")
	return e
}

func TestRegisterWorkflow(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	if got := chaintest.Git(t, dir, "rev-parse", "--verify", "refs/uwf/workflows/review-loop^{commit}"); got == "" {
		t.Fatal("no registry ref")
	}
	again, changed, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "review-loop", loopYAML))
	if err != nil || changed || again.Alias != info.Alias {
		t.Fatalf("re-register identical: changed=%v alias %s vs %s err=%v", changed, again.Alias, info.Alias, err)
	}
	v2 := strings.Replace(loopYAML, "until approved", "until approved, v2", 1)
	info2, changed, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "review-loop", v2))
	if err != nil || !changed || info2.Alias == info.Alias {
		t.Fatalf("register v2: changed=%v err=%v", changed, err)
	}
	hist, err := r.WorkflowHistory(ctx, "review-loop")
	if err != nil || len(hist) != 2 || hist[0].Hash != info2.Alias || hist[1].Hash != info.Alias {
		t.Fatalf("history: %+v %v", hist, err)
	}
	list, err := r.Workflows(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "review-loop" || list[0].Hash != info2.Alias {
		t.Fatalf("list: %+v %v", list, err)
	}
	for _, key := range []string{"review-loop", string(info.Alias), string(info.Alias)[:6], strings.ToLower(string(info2.Alias))} {
		got, err := r.FindWorkflow(ctx, key)
		if err != nil {
			t.Errorf("FindWorkflow(%q): %v", key, err)
			continue
		}
		if got.Name != "review-loop" {
			t.Errorf("FindWorkflow(%q) = %s", key, got.Name)
		}
	}
	if _, err := r.FindWorkflow(ctx, "nope"); !errors.Is(err, chain.ErrUnknownWorkflow) {
		t.Errorf("unknown workflow: %v", err)
	}
	if _, err := r.WorkflowHistory(ctx, "../../HEAD"); err == nil {
		t.Error("a traversal name was accepted")
	}
	chaintest.Fsck(t, dir)
}

func TestThreadLifecycle(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th, err := r.StartThread(ctx, info, "Add a --verbose flag", dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.State(ctx, th)
	if err != nil || st.Status != chain.StatusIdle || st.CurrentRole != "developer" || st.Next.Prompt != "Implement the task." {
		t.Fatalf("state after start: %+v %v", st, err)
	}
	s1 := chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "added <flag> & tests"}, "# Added the flag\n\nDetails.")
	th, _ = r.Thread(ctx, th.ID)
	st, _ = r.State(ctx, th)
	if st.CurrentRole != "reviewer" || st.Next.Prompt != "Review: added <flag> & tests" {
		t.Fatalf("after developer: %+v", st)
	}
	chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "rejected", "comments": "missing docs"}, "")
	chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "docs"}, "")
	last := chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "approved"}, "LGTM")
	th, _ = r.Thread(ctx, th.ID)
	if st, _ = r.State(ctx, th); st.Status != chain.StatusCompleted {
		t.Fatalf("after approval: %+v", st)
	}
	if th.Head.Commit != last.Commit {
		t.Fatal("head is not the last step")
	}
	if _, err := r.Cancel(ctx, th, "too late"); err == nil || !strings.Contains(err.Error(), "already completed") {
		t.Fatalf("cancelling a completed thread: %v", err)
	}

	steps, err := r.Steps(ctx, th)
	if err != nil || len(steps) != 5 || steps[0].Kind != chain.KindStart || steps[4].Status != "approved" || steps[2].Output["comments"] != "missing docs" {
		t.Fatalf("steps: %+v %v", steps, err)
	}

	// The chain reads like a story in git log.
	log := chaintest.Git(t, dir, "log", "--format=%s", th.ID.Ref())
	wantLog := "reviewer: approved — LGTM\ndeveloper: review_needed — docs\nreviewer: rejected — missing docs\ndeveloper: review_needed — added <flag> & tests\nstart: review-loop — Add a --verbose flag"
	if log != wantLog {
		t.Errorf("git log:\n%s\nwant:\n%s", log, wantLog)
	}
	trailers := chaintest.Git(t, dir, "log", "-1", "--format=%(trailers:only,unfold)", s1.Commit.String())
	for _, want := range []string{"Uwf-Thread: " + string(th.ID), "Uwf-Role: developer", "Uwf-Status: review_needed", "Uwf-Agent: test", "Uwf-Node: " + string(s1.Node.Alias)} {
		if !strings.Contains(trailers, want) {
			t.Errorf("trailers of step 1 lack %q:\n%s", want, trailers)
		}
	}
	if body := chaintest.Git(t, dir, "show", s1.Commit.String()+":output.md"); !strings.HasPrefix(body, "# Added the flag") {
		t.Errorf("output.md: %q", body)
	}

	md, err := r.Read(ctx, th, chain.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Thread `" + string(th.ID) + "`", "## Task\n\nAdd a --verbose flag", "## Step 4: reviewer", "<output>\nLGTM\n</output>", "<instruction>\ndo it\n</instruction>"} {
		if !strings.Contains(md, want) {
			t.Errorf("read lacks %q:\n%s", want, md)
		}
	}
	short, err := r.Read(ctx, th, chain.ReadOptions{Quota: 10})
	if err != nil || !strings.Contains(short, "3 earlier steps not shown") || !strings.Contains(short, "## Step 4") {
		t.Errorf("quota read: %v\n%s", err, short)
	}
	before, err := r.Read(ctx, th, chain.ReadOptions{Before: string(last.Node.Alias)})
	if err != nil || strings.Contains(before, "## Task") || strings.Contains(before, "## Step 4") || !strings.Contains(before, "## Step 3") {
		t.Errorf("before read: %v\n%s", err, before)
	}

	// Fork from step 1: new ref, shared history, independent future.
	fork, err := r.Fork(ctx, s1.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if fork.ID == th.ID || fork.Head.Commit != s1.Commit {
		t.Fatalf("fork: %+v", fork)
	}
	chaintest.Step(t, r, fork.ID, "reviewer", map[string]any{"$status": "approved"}, "")
	fork, _ = r.Thread(ctx, fork.ID)
	fsteps, _ := r.Steps(ctx, fork)
	if len(fsteps) != 3 || fsteps[1].Commit != s1.Commit.String() {
		t.Fatalf("fork steps: %+v", fsteps)
	}
	if th2, _ := r.Thread(ctx, th.ID); th2.Head.Commit != last.Commit {
		t.Fatal("stepping the fork moved the original")
	}
	found, err := r.FindStep(ctx, string(s1.Node.Alias)[:8])
	if err != nil || found.Commit != s1.Commit {
		t.Fatalf("FindStep by alias prefix: %v", err)
	}
	found, err = r.FindStep(ctx, s1.Commit.String()[:10])
	if err != nil || found.Commit != s1.Commit {
		t.Fatalf("FindStep by commit prefix: %v", err)
	}

	// List: the original is completed (hidden by default), the fork too.
	all, err := r.List(ctx, chain.ListOptions{All: true})
	if err != nil || len(all) != 2 {
		t.Fatalf("list --all: %+v %v", all, err)
	}
	active, _ := r.List(ctx, chain.ListOptions{})
	if len(active) != 0 {
		t.Fatalf("active threads: %+v", active)
	}
	chaintest.Fsck(t, dir)
}

func TestCancelAndPrefixes(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th, _ := r.StartThread(ctx, info, "task", dir)
	if _, err := r.Cancel(ctx, th, "no longer needed"); err != nil {
		t.Fatal(err)
	}
	th, _ = r.Thread(ctx, th.ID)
	if st, _ := r.State(ctx, th); st.Status != chain.StatusCancelled {
		t.Fatalf("state: %+v", st)
	}
	if _, err := r.Cancel(ctx, th, "again"); err == nil {
		t.Error("cancelled twice")
	}
	// Appending a step after a cancel is refused by the engine, not by the
	// chain; whatever the chain does with it, it must stay readable.
	_, _ = chaintest.TryStep(r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "x"}, "")
	after, err := r.Thread(ctx, th.ID)
	if err != nil {
		t.Fatalf("thread after a step on a cancelled head: %v", err)
	}
	if _, err := r.Chain(ctx, after.Head.Commit); err != nil {
		t.Fatalf("chain after a step on a cancelled head: %v", err)
	}
	id, err := r.ResolveThread(ctx, strings.ToLower(string(th.ID)[:20]))
	if err != nil || id != th.ID {
		t.Fatalf("resolve prefix: %v", err)
	}
	for _, bad := range []string{"../../HEAD", "refs/heads/main", "", "0"} {
		if _, err := r.ResolveThread(ctx, bad); err == nil {
			t.Errorf("ResolveThread(%q) accepted", bad)
		}
	}
	if _, err := r.ResolveThread(ctx, "01ARZ3NDEKTSV4RRFFQ69G5FAV"); !errors.Is(err, chain.ErrUnknownThread) {
		t.Errorf("unknown thread: %v", err)
	}
}

func TestAppendStepRejectsBadSteps(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th, _ := r.StartThread(ctx, info, "task", dir)
	stale, _ := r.Thread(ctx, th.ID)
	chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "one"}, "")

	// A step written against the old head names the wrong prev.
	ref, err := chaintest.WriteStepNode(r, stale, "developer", map[string]any{"$status": "review_needed", "summary": "two"}, "")
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := r.Thread(ctx, th.ID)
	if _, err := r.AppendStep(ctx, cur, ref, chain.AppendOptions{}); !errors.Is(err, chain.ErrBadStep) {
		t.Fatalf("stale prev: %v", err)
	}
	// Wrong role.
	ref, _ = chaintest.WriteStepNode(r, cur, "developer", map[string]any{"$status": "review_needed", "summary": "x"}, "")
	if _, err := r.AppendStep(ctx, cur, ref, chain.AppendOptions{ExpectedRole: "reviewer"}); err == nil || !strings.Contains(err.Error(), `expected role "reviewer"`) {
		t.Fatalf("role mismatch: %v", err)
	}
	// Not a StepNode at all.
	text, _ := r.Store.PutText("hello")
	if _, err := r.AppendStep(ctx, cur, text, chain.AppendOptions{}); !errors.Is(err, chain.ErrBadStep) {
		t.Fatalf("text node as step: %v", err)
	}
	// The head stays put after every rejection.
	after, _ := r.Thread(ctx, th.ID)
	if after.Head.Commit != cur.Head.Commit {
		t.Fatal("head moved on a rejected step")
	}
	// A concurrent writer that already moved the ref makes the CAS fail.
	ref, _ = chaintest.WriteStepNode(r, cur, "reviewer", map[string]any{"$status": "approved"}, "")
	chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "rejected", "comments": "no"}, "")
	if _, err := r.AppendStep(ctx, cur, ref, chain.AppendOptions{}); !errors.Is(err, chain.ErrHeadMoved) && !errors.Is(err, chain.ErrBadStep) {
		t.Fatalf("lost race: %v", err)
	}
}

func TestConditionsWorkflow(t *testing.T) {
	ctx := context.Background()
	dir := chaintest.InitRepo(t)
	r := chaintest.Open(t, dir)
	info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "solve-issue", conditionsYAML))
	if err != nil {
		t.Fatal(err)
	}
	th, _ := r.StartThread(ctx, info, "fix bug 7", dir)
	chaintest.Step(t, r, th.ID, "developer", map[string]any{"summary": "fixed"}, "")
	chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"approved": false, "comments": "tests?"}, "")
	th, _ = r.Thread(ctx, th.ID)
	if st, _ := r.State(ctx, th); st.CurrentRole != "developer" || st.Next.Prompt != "Fix it." {
		t.Fatalf("after rejection: %+v", st)
	}
	chaintest.Step(t, r, th.ID, "developer", map[string]any{"summary": "tests"}, "")
	chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"approved": true}, "")
	th, _ = r.Thread(ctx, th.ID)
	if st, _ := r.State(ctx, th); st.Status != chain.StatusCompleted {
		t.Fatalf("after approval: %+v", st)
	}
}

func TestFailedAttemptAndLock(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th, _ := r.StartThread(ctx, info, "task", dir)
	unlock, err := r.LockThread(th.ID)
	if err != nil {
		t.Fatal(err)
	}
	other := chaintest.Open(t, dir)
	if _, err := other.LockThread(th.ID); !errors.Is(err, chain.ErrBusy) {
		t.Fatalf("second lock: %v", err)
	}
	othersView, _ := other.Thread(ctx, th.ID)
	if st, _ := other.State(ctx, othersView); st.Status != chain.StatusRunning {
		t.Fatalf("status while locked elsewhere: %s", st.Status)
	}
	unlock()
	if st, _ := other.State(ctx, othersView); st.Status != chain.StatusIdle {
		t.Fatalf("status after unlock: %s", st.Status)
	}
	commit, err := r.RecordAttempt(ctx, th, chain.Attempt{Role: "developer", Agent: "x", Error: "boom", Stdout: "partial work", StartedAtMs: 1, CompletedAtMs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := r.State(ctx, th); st.Status != chain.StatusFailed || st.Error != "boom" || st.CurrentRole != "developer" {
		t.Fatalf("state after failed attempt: %+v", st)
	}
	atts, err := r.Attempts(ctx, th, true)
	if err != nil || len(atts) != 1 || atts[0].Commit != commit {
		t.Fatalf("attempts: %+v %v", atts, err)
	}
	if got := chaintest.Git(t, dir, "show", commit.String()+":stdout.txt"); got != "partial work" {
		t.Fatalf("stdout kept: %q", got)
	}
	chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "ok"}, "")
	th, _ = r.Thread(ctx, th.ID)
	if st, _ := r.State(ctx, th); st.Status != chain.StatusIdle {
		t.Fatalf("a later success still reports failure: %+v", st)
	}
	chaintest.Fsck(t, dir)
}

// TestGitInterop: gc, pack-refs, mirror clones and a deleted index keep
// everything readable.
func TestGitInterop(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th, _ := r.StartThread(ctx, info, "task", dir)
	s1 := chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "one"}, "body")
	if _, err := r.Fork(ctx, s1.Commit); err != nil {
		t.Fatal(err)
	}
	chaintest.Git(t, dir, "gc", "--prune=now", "--aggressive", "--quiet")
	chaintest.Git(t, dir, "pack-refs", "--all")
	if err := os.RemoveAll(filepath.Join(dir, ".git", "uwf")); err != nil {
		t.Fatal(err)
	}
	chaintest.Fsck(t, dir)
	check := func(name, dir string) {
		t.Helper()
		r := chaintest.Open(t, dir)
		list, err := r.List(ctx, chain.ListOptions{All: true})
		if err != nil || len(list) != 2 {
			t.Fatalf("%s: list %+v %v", name, list, err)
		}
		e, err := r.FindStep(ctx, string(s1.Node.Alias))
		if err != nil || e.Commit != s1.Commit {
			t.Fatalf("%s: find step: %v", name, err)
		}
		if _, err := r.Store.Get(e.Step.Output); err != nil {
			t.Fatalf("%s: output by alias: %v", name, err)
		}
		if _, err := r.FindWorkflow(ctx, string(info.Alias)); err != nil {
			t.Fatalf("%s: workflow by alias: %v", name, err)
		}
		th2, err := r.Thread(ctx, th.ID)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := r.Read(ctx, th2, chain.ReadOptions{}); err != nil {
			t.Fatalf("%s: read: %v", name, err)
		}
	}
	check("after gc", dir)
	mirror := filepath.Join(t.TempDir(), "mirror.git")
	chaintest.Git(t, dir, "clone", "-q", "--mirror", dir, mirror)
	check("mirror", mirror)
	chaintest.Fsck(t, mirror)
}

func TestWorktreeAndBare(t *testing.T) {
	ctx := context.Background()
	dir, _, info := setup(t)
	wt := filepath.Join(t.TempDir(), "wt")
	chaintest.Git(t, dir, "worktree", "add", "-q", wt)
	rw := chaintest.Open(t, wt)
	th, err := rw.StartThread(ctx, info, "from a worktree", wt)
	if err != nil {
		t.Fatal(err)
	}
	// The ref lives in the common dir: the main worktree sees it.
	if got := chaintest.Git(t, dir, "for-each-ref", "--format=%(refname)", th.ID.Ref()); got != th.ID.Ref() {
		t.Fatalf("thread ref not visible from the main worktree: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "worktrees", "wt", "refs", "uwf")); err == nil {
		t.Fatal("refs written into the worktree's private dir")
	}
	chaintest.Step(t, chaintest.Open(t, dir), th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "x"}, "")

	bare := filepath.Join(t.TempDir(), "bare.git")
	chaintest.Git(t, dir, "clone", "-q", "--bare", dir, bare)
	chaintest.Git(t, dir, "push", "-q", bare, "refs/uwf/*:refs/uwf/*")
	rb := chaintest.Open(t, bare)
	bth, err := rb.Thread(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if bth.Head.Step == nil || bth.Head.Step.Role != "developer" {
		t.Fatalf("bare head: %+v", bth.Head)
	}
	winfo, err := rb.FindWorkflow(ctx, "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.StartThread(ctx, winfo, "in a bare repo", bare); err != nil {
		t.Fatal(err)
	}
	chaintest.Fsck(t, bare)
	if gitobj.ZeroHash == bth.Head.Commit {
		t.Fatal("zero head")
	}
}

func TestStepTrailer(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th, _ := r.StartThread(ctx, info, "task", dir)
	startCommit := th.Head.Commit
	s1 := chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "x"}, "")
	// A code commit made during the step names the thread and the commit
	// the step started from.
	chaintest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "code change", "--trailer",
		chain.StepTrailer+": "+chain.StepTrailerValue(th.ID, startCommit))
	e, err := r.FindStep(ctx, "HEAD")
	if err != nil || e.Commit != s1.Commit {
		t.Fatalf("follow trailer: %v", err)
	}
	chaintest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "by alias", "--trailer", chain.StepTrailer+": "+string(s1.Node.Alias))
	if e, err := r.FindStep(ctx, "HEAD"); err != nil || e.Commit != s1.Commit {
		t.Fatalf("follow alias trailer: %v", err)
	}
	chaintest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "plain")
	if _, err := r.FindStep(ctx, "HEAD"); err == nil {
		t.Fatal("a plain commit resolved to a step")
	}
}

func TestRepositoryShapes(t *testing.T) {
	ctx := context.Background()
	// SHA-256 repositories are refused with a clear error, not half-supported.
	dir := t.TempDir()
	chaintest.Git(t, dir, "init", "-q", "--object-format=sha256")
	if _, err := chain.Open(ctx, dir, chain.Options{}); !errors.Is(err, chain.ErrUnsupportedRepo) || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("sha256 repository: %v", err)
	}
	// extensions.worktreeConfig (set by some agent harnesses) works.
	dir, r, info := setup(t)
	chaintest.Git(t, dir, "config", "extensions.worktreeConfig", "true")
	wt := filepath.Join(t.TempDir(), "wt")
	chaintest.Git(t, dir, "worktree", "add", "-q", wt)
	rw := chaintest.Open(t, wt)
	th, err := rw.StartThread(ctx, info, "with worktreeConfig", wt)
	if err != nil {
		t.Fatal(err)
	}
	chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "x"}, "")
	chaintest.Fsck(t, dir)
}

// TestReadsWriteNothing: listing, reading and walking threads in a fresh
// process (no caches) adds no object to the repository.
func TestReadsWriteNothing(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th, _ := r.StartThread(ctx, info, "task", dir)
	chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "x"}, "body")
	objectsNow := func() string {
		return chaintest.Git(t, dir, "count-objects", "-v")
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git", "uwf")); err != nil {
		t.Fatal(err)
	}
	before := objectsNow()
	fresh := chaintest.Open(t, dir)
	if _, err := fresh.List(ctx, chain.ListOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	got, err := fresh.Thread(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Read(ctx, got, chain.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Steps(ctx, got); err != nil {
		t.Fatal(err)
	}
	if after := objectsNow(); after != before {
		t.Fatalf("reads wrote objects:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestListCacheNotRewrittenForUnreadableThreads: a thread ref that points
// at something that is not a thread is reported as failed, never cached,
// and does not make every listing rewrite the summary cache.
func TestListCacheNotRewrittenForUnreadableThreads(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	if _, err := r.StartThread(ctx, info, "task", dir); err != nil {
		t.Fatal(err)
	}
	chaintest.Git(t, dir, "update-ref", "refs/uwf/threads/01ARZ3NDEKTSV4RRFFQ69G5FAV", "HEAD")
	list, err := r.List(ctx, chain.ListOptions{All: true})
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %+v %v", list, err)
	}
	cache := filepath.Join(dir, ".git", "uwf", "cache", "summaries")
	first, err := os.Stat(cache)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	list, err = chaintest.Open(t, dir).List(ctx, chain.ListOptions{All: true})
	if err != nil || len(list) != 2 {
		t.Fatalf("second list: %+v %v", list, err)
	}
	second, err := os.Stat(cache)
	if err != nil {
		t.Fatal(err)
	}
	if !second.ModTime().Equal(first.ModTime()) {
		t.Fatal("the summary cache was rewritten although nothing changed")
	}
}
