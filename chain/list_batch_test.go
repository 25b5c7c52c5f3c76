package chain_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

const suspendYAML = `name: suspend
roles:
  planner:
    frontmatter:
      type: object
      properties:
        $status: {enum: [ready, insufficient_info]}
        reason: {type: string}
      required: [$status]
graph:
  $START:
    _: {role: planner, prompt: "Plan the task."}
  planner:
    ready: {role: $END, prompt: "Done."}
    insufficient_info: {role: $SUSPEND, prompt: "More information needed: {{reason}}"}
`

// rewriteHead points a thread at a new commit on top of its head whose
// root tree is the head's with the top-level entries in set replaced
// ("<mode> <type> <oid>") or, when empty, removed.
func rewriteHead(t *testing.T, dir string, id chain.ThreadID, set map[string]string) {
	t.Helper()
	head := chaintest.Git(t, dir, "rev-parse", id.Ref())
	var lines []string
	for _, l := range strings.Split(chaintest.Git(t, dir, "ls-tree", head), "\n") {
		name := l[strings.IndexByte(l, '\t')+1:]
		if _, ok := set[name]; !ok {
			lines = append(lines, l)
		}
	}
	for name, entry := range set {
		if entry != "" {
			lines = append(lines, entry+"\t"+name)
		}
	}
	tree := gitIn(t, dir, strings.Join(lines, "\n")+"\n", "mktree", "--missing")
	commit := chaintest.Git(t, dir, "commit-tree", tree, "-p", head, "-m", "damaged")
	chaintest.Git(t, dir, "update-ref", id.Ref(), commit)
}

// blob writes content and returns a tree entry for it.
func blob(t *testing.T, dir, content string) string {
	t.Helper()
	return "100644 blob " + gitIn(t, dir, content, "hash-object", "-w", "--stdin")
}

func gitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, chaintest.GitEnv()
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderrOf(err))
	}
	return strings.TrimSpace(string(out))
}

// The batch path (one cat-file process) derives exactly what the usual
// path does, and leaves what it cannot read to it.
func TestSummarizeBatchMatchesUsualPath(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	suspend, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "suspend", suspendYAML))
	if err != nil {
		t.Fatal(err)
	}
	transitions, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "solve-issue", conditionsYAML))
	if err != nil {
		t.Fatal(err)
	}
	start := func(wf *chain.WorkflowInfo, p string) *chain.Thread {
		th, err := r.StartThread(ctx, wf, p, dir)
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	want := map[chain.ThreadID]chain.Status{}
	expect := func(th *chain.Thread, st chain.Status) { want[th.ID] = st }
	expect(start(info, "at its start"), chain.StatusIdle)
	idle := start(info, "one step")
	chaintest.Step(t, r, idle.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "body")
	expect(idle, chain.StatusIdle)
	done := start(info, "completed")
	chaintest.Step(t, r, done.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
	chaintest.Step(t, r, done.ID, "reviewer", map[string]any{"$status": "approved"}, "")
	expect(done, chain.StatusCompleted)
	cancelled := start(info, "cancelled")
	if _, err := r.Cancel(ctx, cancelled, "enough"); err != nil {
		t.Fatal(err)
	}
	expect(cancelled, chain.StatusCancelled)
	failed := start(info, "failed")
	if _, err := r.RecordAttempt(ctx, failed, chain.Attempt{Role: "developer", Agent: "x", Error: "boom", StartedAtMs: 1, CompletedAtMs: 2}); err != nil {
		t.Fatal(err)
	}
	expect(failed, chain.StatusFailed)
	suspended := start(suspend, "suspended")
	chaintest.Step(t, r, suspended.ID, "planner", map[string]any{"$status": "insufficient_info", "reason": "which repo?"}, "")
	expect(suspended, chain.StatusSuspended)
	// A status-map head whose status has no transition.
	bad := start(info, "no transition")
	chaintest.Step(t, r, bad.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
	chaintest.Step(t, r, bad.ID, "reviewer", map[string]any{"$status": "rejected"}, "")
	chaintest.Step(t, r, bad.ID, "developer", map[string]any{"$status": "review_needed", "summary": "again"}, "")
	expect(bad, chain.StatusIdle)
	// Transition workflows route on the whole chain.
	tr := start(transitions, "transitions")
	chaintest.Step(t, r, tr.ID, "developer", map[string]any{"summary": "fixed"}, "")
	chaintest.Step(t, r, tr.ID, "reviewer", map[string]any{"approved": false, "comments": "tests?"}, "")
	expect(tr, chain.StatusIdle)
	expect(start(transitions, "transitions at start"), chain.StatusIdle)
	skip, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "skip", chaintest.SkipYAML))
	if err != nil {
		t.Fatal(err)
	}
	skipped := start(skip, "routes on an earlier step")
	chaintest.Step(t, r, skipped.ID, "planner", map[string]any{"skip": true}, "")
	chaintest.Step(t, r, skipped.ID, "worker", map[string]any{"summary": "s"}, "")
	expect(skipped, chain.StatusCompleted)
	trCancelled := start(transitions, "transitions cancelled")
	if _, err := r.Cancel(ctx, trCancelled, "enough"); err != nil {
		t.Fatal(err)
	}
	expect(trCancelled, chain.StatusCancelled)

	// A thread ref pointing at a commit that is not a thread commit.
	foreign := start(info, "foreign head")
	chaintest.Git(t, dir, "commit", "--allow-empty", "-q", "-m", "plain")
	chaintest.Git(t, dir, "update-ref", foreign.ID.Ref(), chaintest.Git(t, dir, "rev-parse", "HEAD"))
	expect(foreign, chain.StatusFailed)
	// Damaged heads: each is reported as the usual path reports it. The
	// usual path finds a node missing from nodes/ by its alias elsewhere.
	damage := func(p string, steps int, set func(th *chain.Thread) map[string]string, st ...chain.Status) {
		th := start(info, p)
		for i := 0; i < steps; i++ {
			chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
		}
		rewriteHead(t, dir, th.ID, set(th))
		expect(th, append(st, chain.StatusFailed)[0])
	}
	nonCanonical := `{"payload": {"prompt":"x"}}`
	damage("non-canonical head node", 1, func(*chain.Thread) map[string]string {
		return map[string]string{"node": blob(t, dir, nonCanonical)}
	})
	damage("non-canonical start node", 1, func(*chain.Thread) map[string]string {
		return map[string]string{"start": blob(t, dir, nonCanonical)}
	})
	damage("non-canonical node of a thread at its start", 0, func(*chain.Thread) map[string]string {
		b := blob(t, dir, nonCanonical)
		return map[string]string{"node": b, "start": b}
	})
	damage("node is a directory", 1, func(*chain.Thread) map[string]string {
		return map[string]string{"node": "040000 tree " + chaintest.Git(t, dir, "mktree")}
	})
	damage("no node", 1, func(*chain.Thread) map[string]string { return map[string]string{"node": ""} })
	damage("no start", 1, func(*chain.Thread) map[string]string { return map[string]string{"start": ""} })
	damage("no workflow", 1, func(*chain.Thread) map[string]string { return map[string]string{"workflow": ""} })
	damage("missing node blob", 1, func(*chain.Thread) map[string]string {
		return map[string]string{"node": "100644 blob " + strings.Repeat("1", 40)}
	})
	damage("no nodes", 1, func(*chain.Thread) map[string]string { return map[string]string{"nodes": ""} }, chain.StatusIdle)

	damage("output is not its alias", 1, func(th *chain.Thread) map[string]string {
		// nodes/ with every entry's blob replaced by one that is no node.
		var lines []string
		head := chaintest.Git(t, dir, "rev-parse", th.ID.Ref())
		other := blob(t, dir, `{"payload":1}`)
		for _, l := range strings.Split(chaintest.Git(t, dir, "ls-tree", head+":nodes"), "\n") {
			lines = append(lines, other+l[strings.IndexByte(l, '\t'):])
		}
		return map[string]string{"nodes": "040000 tree " + gitIn(t, dir, strings.Join(lines, "\n")+"\n", "mktree")}
	}, chain.StatusIdle)

	// The objects are read in process, loose and then packed, and through
	// git cat-file when the object database has alternates (which the
	// in-process reader does not follow).
	alternates := filepath.Join(dir, ".git", "objects", "info", "alternates")
	for _, ways := range []struct {
		name   string
		before func()
	}{
		{"in process, loose objects", func() {}},
		{"cat-file", func() {
			if err := os.WriteFile(alternates, []byte(t.TempDir()+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"in process, packed objects", func() {
			if err := os.Remove(alternates); err != nil {
				t.Fatal(err)
			}
			// Not repack: it refuses the thread whose node is missing.
			all := chaintest.Git(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
			gitIn(t, dir, all+"\n", "pack-objects", "-q", "--depth=20", "--window=50", filepath.Join(dir, ".git", "objects", "pack", "pack"))
			chaintest.Git(t, dir, "prune-packed")
		}},
	} {
		ways.before()
		for _, chunk := range []int{512, 1, 2, 3} {
			t.Run(fmt.Sprintf("%s, chunks of %d", ways.name, chunk), func(t *testing.T) {
				summariesMatch(t, dir, chunk, want)
			})
		}
	}
}

// summariesMatch checks that the batch path derives the summaries the
// usual path does, in chunks of chunk threads, the states wanted.
func summariesMatch(t *testing.T, dir string, chunk int, want map[chain.ThreadID]chain.Status) {
	t.Helper()
	ctx := context.Background()
	batch, usual, fellBack, err := chaintest.Open(t, dir).SummariesBothWays(ctx, chunk)
	if err != nil {
		t.Fatal(err)
	}
	if len(usual) != len(want) || len(batch) != len(want) {
		t.Fatalf("want %d threads, got %d and %d", len(want), len(batch), len(usual))
	}
	for id, st := range want {
		if !reflect.DeepEqual(batch[id], usual[id]) {
			t.Errorf("thread %s (%s):\nbatch %+v\nusual %+v", id, usual[id].Prompt, batch[id], usual[id])
		}
		if usual[id].Status != st {
			t.Errorf("thread %s (%s): %s, want %s (%s)", id, usual[id].Prompt, usual[id].Status, st, usual[id].Error)
		}
		// The plain cases must be settled by the batch path itself,
		// or the comparison above proves nothing about it.
		switch usual[id].Prompt {
		case "at its start", "one step", "completed", "cancelled", "suspended", "no transition":
			if fellBack[id] {
				t.Errorf("thread %s (%s) was left to the go-git path", id, usual[id].Prompt)
			}
		}
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// BenchmarkSummarizeBatch: the batch path alone over 300 threads (at their
// start, after one step, completed).
func BenchmarkSummarizeBatch(b *testing.B) {
	ctx := context.Background()
	dir := chaintest.InitRepo(b)
	r := chaintest.Open(b, dir)
	info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(b, "review-loop", loopYAML))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		th, err := r.StartThread(ctx, info, fmt.Sprintf("task %d", i), dir)
		if err != nil {
			b.Fatal(err)
		}
		if i%3 > 0 {
			chaintest.Step(b, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": fmt.Sprint("s", i)}, "")
		}
		if i%3 > 1 {
			chaintest.Step(b, r, th.ID, "reviewer", map[string]any{"$status": "approved"}, "")
		}
	}
	chaintest.Git(b, dir, "gc", "-q")
	r = chaintest.Open(b, dir)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n, err := r.SummarizeBatch(ctx); err != nil || n != 300 {
			b.Fatalf("%d summaries, %v", n, err)
		}
	}
}
