package chain_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// TestWalkLocal: a cold chain walk that reads the objects itself, from
// loose objects, from a pack of deltas or from both, reads the whole chain
// by itself and gives what the walk one commit at a time gives, cache
// records included.
func TestWalkLocal(t *testing.T) {
	ctx := context.Background()
	dir, r, th := startThread(t)
	steps := 0
	step := func(n int) {
		for range n {
			steps++
			// Outputs and bodies that differ a little, so that a repack
			// stores most of them as deltas.
			body := strings.Repeat("a line of the deliverable that every step repeats\n", 20) + strings.Repeat("x", steps)
			chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "step " + strings.Repeat("s", steps)}, body)
		}
	}
	entriesDir := filepath.Join(dir, ".git", "uwf", "cache", "entries")
	packs := func() []string {
		p, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
		return p
	}
	tests := []struct {
		name  string
		setup func(t *testing.T)
	}{
		{"loose objects", func(t *testing.T) {
			step(6)
			if p := packs(); len(p) != 0 {
				t.Fatalf("packs before any repack: %v", p)
			}
		}},
		{"a pack of deltas", func(t *testing.T) {
			step(6)
			chaintest.Git(t, dir, "repack", "-adf", "-q", "--depth=50", "--window=50")
			chaintest.Git(t, dir, "prune-packed")
			verify := chaintest.Git(t, dir, "verify-pack", "-v", packs()[0])
			if !strings.Contains(verify, "chain length = 2") {
				t.Fatalf("the repack made no delta chains:\n%s", verify)
			}
		}},
		{"packed and loose", func(t *testing.T) { step(4) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.setup(t)
			head := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", th.ID.Ref()))
			want := strings.Fields(chaintest.Git(t, dir, "rev-list", "--reverse", "--first-parent", head))
			got, err := chain.WalkLocal(ctx, chaintest.Open(t, dir), gitobj.NewHash(head))
			if err != nil {
				t.Fatalf("the walk reading the objects itself: %v", err)
			}
			var ids []string
			for _, h := range got {
				ids = append(ids, h.String())
			}
			if !slices.Equal(ids, want) {
				t.Fatalf("the walk read %v, want %v", ids, want)
			}

			os.RemoveAll(entriesDir)
			wantView := walkWith(t, dir, th.ID, func(r *chain.Repo) { chain.SetWalkBatchAfter(r, 1<<30) })
			wantFile := sortedLines(t, entryCacheFile(t, dir))
			os.RemoveAll(entriesDir)
			gotView := walkWith(t, dir, th.ID, func(r *chain.Repo) { chain.SetWalkBatchAfter(r, -1) })
			sameView(t, gotView, wantView)
			if gotFile := sortedLines(t, entryCacheFile(t, dir)); !slices.Equal(gotFile, wantFile) {
				t.Errorf("cache file differs from the one the walk one by one wrote:\n got %q\nwant %q", gotFile, wantFile)
			}
		})
	}
}

// TestWalkLocalDamaged: an object the walk cannot read makes it give up
// with an error (the walk then reads through git), never a wrong chain.
func TestWalkLocalDamaged(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th := threadOfThreeSteps(t, r, info, dir, "task", "s", "body")
	head := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", th.ID.Ref()))
	for _, name := range []string{th.ID.Ref() + "~1", th.ID.Ref() + "~2^{tree}", th.ID.Ref() + "~1:node"} {
		t.Run(name, func(t *testing.T) {
			oid := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", name))
			path := filepath.Join(dir, ".git", "objects", oid[:2], oid[2:])
			saved, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := os.WriteFile(path, saved, 0o444); err != nil {
					t.Fatal(err)
				}
			}()
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, saved[:len(saved)/2], 0o644); err != nil {
				t.Fatal(err)
			}
			if got, err := chain.WalkLocal(ctx, chaintest.Open(t, dir), gitobj.NewHash(head)); err == nil {
				t.Fatalf("the walk read %v through a damaged object", got)
			}
		})
	}
}

// TestWalkLocalStartSooner: a start commit whose tree names another start
// node (a hand-made history) does not stop the goroutine that follows the
// parents, which goes on into the thread below; the walk still ends at
// the start entry, with what the walk one commit at a time gives.
func TestWalkLocalStartSooner(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	under := threadOfThreeSteps(t, r, info, dir, "the thread below", "below", "b")
	th := threadOfThreeSteps(t, r, info, dir, "the thread on top", "top", "body")
	// Copy the thread on top onto the head of the thread below, its start
	// commit's tree naming the start node of the thread below.
	parent := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", under.ID.Ref()))
	otherStart := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", under.ID.Ref()+":start"))
	commits := strings.Fields(chaintest.Git(t, dir, "rev-list", "--reverse", "--first-parent", th.ID.Ref()))
	for i, c := range commits {
		tree := c + "^{tree}"
		if i == 0 {
			var b strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(chaintest.Git(t, dir, "ls-tree", c)), "\n") {
				if strings.HasSuffix(line, "\tstart") {
					line = "100644 blob " + otherStart + "\tstart"
				}
				b.WriteString(line + "\n")
			}
			cmd := exec.Command("git", "mktree")
			cmd.Dir, cmd.Env, cmd.Stdin = dir, chaintest.GitEnv(), strings.NewReader(b.String())
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("git mktree: %v", err)
			}
			tree = strings.TrimSpace(string(out))
		}
		msg := chaintest.Git(t, dir, "log", "-1", "--format=%B", c)
		cmd := exec.Command("git", "commit-tree", tree, "-p", parent, "-m", msg)
		cmd.Dir, cmd.Env = dir, chaintest.GitEnv()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git commit-tree: %v", err)
		}
		parent = strings.TrimSpace(string(out))
	}
	chaintest.Git(t, dir, "update-ref", th.ID.Ref(), parent)

	got, err := chain.WalkLocal(ctx, chaintest.Open(t, dir), gitobj.NewHash(parent))
	if err != nil {
		t.Fatalf("the walk reading the objects itself: %v", err)
	}
	if len(got) != 4 {
		t.Fatalf("the walk read %d commits, want the 4 of the thread on top", len(got))
	}
	entriesDir := filepath.Join(dir, ".git", "uwf", "cache", "entries")
	os.RemoveAll(entriesDir)
	want := walkWith(t, dir, th.ID, func(r *chain.Repo) { chain.SetWalkBatchAfter(r, 1<<30) })
	wantFile := sortedLines(t, entryCacheFile(t, dir))
	os.RemoveAll(entriesDir)
	sameView(t, walkWith(t, dir, th.ID, func(r *chain.Repo) { chain.SetWalkBatchAfter(r, -1) }), want)
	if gotFile := sortedLines(t, entryCacheFile(t, dir)); !slices.Equal(gotFile, wantFile) {
		t.Errorf("cache file differs from the one the walk one by one wrote")
	}
}

// TestWalkLocalOutputElsewhere: a step whose output node is not in its
// commit's nodes/ (a hand-made tree) gets its output as the walk one
// commit at a time finds it (the alias index), in its record too.
func TestWalkLocalOutputElsewhere(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th := threadOfThreeSteps(t, r, info, dir, "task", "s", "body")
	// The head again, its nodes/ without the step's output node.
	head := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", th.ID.Ref()))
	e, err := r.Entry(ctx, gitobj.NewHash(head))
	if err != nil || e.Step == nil {
		t.Fatalf("head entry: %+v, %v", e, err)
	}
	mktree := func(lines []string) string {
		cmd := exec.Command("git", "mktree")
		cmd.Dir, cmd.Env, cmd.Stdin = dir, chaintest.GitEnv(), strings.NewReader(strings.Join(lines, "\n")+"\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git mktree: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	var nodes, root []string
	for _, line := range strings.Split(strings.TrimSpace(chaintest.Git(t, dir, "ls-tree", head+":nodes")), "\n") {
		if !strings.HasSuffix(line, "\t"+string(e.Step.Output)) {
			nodes = append(nodes, line)
		}
	}
	if len(nodes) == len(strings.Split(strings.TrimSpace(chaintest.Git(t, dir, "ls-tree", head+":nodes")), "\n")) {
		t.Fatalf("no output node %s in nodes/", e.Step.Output)
	}
	for _, line := range strings.Split(strings.TrimSpace(chaintest.Git(t, dir, "ls-tree", head)), "\n") {
		if strings.HasSuffix(line, "\tnodes") {
			line = "040000 tree " + mktree(nodes) + "\tnodes"
		}
		root = append(root, line)
	}
	msg := chaintest.Git(t, dir, "log", "-1", "--format=%B", head)
	cmd := exec.Command("git", "commit-tree", mktree(root), "-p", head+"^", "-m", msg)
	cmd.Dir, cmd.Env = dir, chaintest.GitEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git commit-tree: %v", err)
	}
	chaintest.Git(t, dir, "update-ref", th.ID.Ref(), strings.TrimSpace(string(out)))

	entriesDir := filepath.Join(dir, ".git", "uwf", "cache", "entries")
	os.RemoveAll(entriesDir)
	want := walkWith(t, dir, th.ID, func(r *chain.Repo) { chain.SetWalkBatchAfter(r, 1<<30) })
	wantFile := sortedLines(t, entryCacheFile(t, dir))
	os.RemoveAll(entriesDir)
	sameView(t, walkWith(t, dir, th.ID, func(r *chain.Repo) { chain.SetWalkBatchAfter(r, -1) }), want)
	if gotFile := sortedLines(t, entryCacheFile(t, dir)); !slices.Equal(gotFile, wantFile) {
		t.Errorf("cache file differs from the one the walk one by one wrote:\n got %q\nwant %q", gotFile, wantFile)
	}
}

// threadOfThreeSteps starts a thread in r with task and takes three
// developer steps with the same summary and body.
func threadOfThreeSteps(t *testing.T, r *chain.Repo, info *chain.WorkflowInfo, dir, task, summary, body string) *chain.Thread {
	t.Helper()
	th, err := r.StartThread(context.Background(), info, task, dir)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": summary}, body)
	}
	return th
}
