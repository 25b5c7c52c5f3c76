package chain_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// BenchmarkStartThread: one thread start (StartNode, trees, commit, ref CAS)
// in a repository on disk.
func BenchmarkStartThread(b *testing.B) {
	ctx := context.Background()
	dir := chaintest.InitRepo(b)
	r := chaintest.Open(b, dir)
	info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(b, "review-loop", loopYAML))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.StartThread(ctx, info, fmt.Sprintf("task %d", i), dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendStep: one verified step append (output and StepNode
// writes, verification, trees, commit, ref CAS).
func BenchmarkAppendStep(b *testing.B) {
	ctx := context.Background()
	dir := chaintest.InitRepo(b)
	r := chaintest.Open(b, dir)
	info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(b, "review-loop", loopYAML))
	if err != nil {
		b.Fatal(err)
	}
	th, err := r.StartThread(ctx, info, "task", dir)
	if err != nil {
		b.Fatal(err)
	}
	outputs := []struct {
		role string
		out  map[string]any
	}{
		{"developer", map[string]any{"$status": "review_needed", "summary": "s"}},
		{"reviewer", map[string]any{"$status": "rejected", "comments": "c"}},
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o := outputs[i%2]
		chaintest.Step(b, r, th.ID, o.role, o.out, fmt.Sprintf("body %d", i))
	}
}

// BenchmarkList1000: `thread list --all` over 1,000 threads, with a fresh
// Repo (a new process) each time; "cold" also deletes the local caches.
func BenchmarkList1000(b *testing.B) {
	ctx := context.Background()
	dir := chaintest.InitRepo(b)
	r := chaintest.Open(b, dir)
	info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(b, "review-loop", loopYAML))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		th, err := r.StartThread(ctx, info, fmt.Sprintf("task %d", i), dir)
		if err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			chaintest.Step(b, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
		}
	}
	for _, mode := range []string{"warm", "cold"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if mode == "cold" {
					b.StopTimer()
					if err := os.RemoveAll(filepath.Join(dir, ".git", "uwf")); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				list, err := chaintest.Open(b, dir).List(ctx, chain.ListOptions{All: true})
				if err != nil || len(list) != 1000 {
					b.Fatalf("list: %d threads, %v", len(list), err)
				}
			}
		})
	}
}

// BenchmarkListSuspendedChildren: warm `thread list --all` over 1,000
// threads of which 300 are parents waiting on suspended children (the
// overlay's slow path: the child's start commit and the parent are read
// for each).
func BenchmarkListSuspendedChildren(b *testing.B) {
	ctx := context.Background()
	dir := chaintest.InitRepo(b)
	r := chaintest.Open(b, dir)
	infos := map[string]*chain.WorkflowInfo{}
	for _, w := range []struct{ name, yaml string }{{"asker", askerYAML}, {"middle", middleYAML}, {"plain", plainYAML}} {
		info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(b, w.name, w.yaml))
		if err != nil {
			b.Fatal(err)
		}
		infos[w.name] = info
	}
	for i := 0; i < 400; i++ {
		if _, err := r.StartThread(ctx, infos["plain"], fmt.Sprintf("task %d", i), dir); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 300; i++ {
		parent, err := r.StartThread(ctx, infos["middle"], fmt.Sprintf("parent %d", i), dir)
		if err != nil {
			b.Fatal(err)
		}
		child, err := r.StartChild(ctx, parent, "ask", infos["asker"], "the child task", ".")
		if err != nil {
			b.Fatal(err)
		}
		chaintest.Step(b, r, child.ID, "planner", map[string]any{"$status": "insufficient_info", "reason": "which API?"}, "")
	}
	if _, err := r.List(ctx, chain.ListOptions{All: true}); err != nil { // warm the cache
		b.Fatal(err)
	}
	for _, objects := range []string{"loose", "packed"} {
		b.Run(objects, func(b *testing.B) {
			if objects == "packed" {
				chaintest.Git(b, dir, "repack", "-adq")
			}
			for i := 0; i < b.N; i++ {
				list, err := chaintest.Open(b, dir).List(ctx, chain.ListOptions{All: true})
				if err != nil || len(list) != 1000 {
					b.Fatalf("list: %d threads, %v", len(list), err)
				}
				n := 0
				for _, s := range list {
					if s.SuspendedChild != nil {
						n++
					}
				}
				if n != 300 {
					b.Fatalf("%d parents wait on a suspended child, want 300", n)
				}
			}
		})
	}
}

// BenchmarkReadLong: what `thread read` and `thread steps --format json`
// do in-process (CachedThread, then Read or Steps) on a 300-step thread
// with the caches warm, with a freshly opened Repo (a new process) each
// time, objects packed. Opening (git discovery) is not timed.
func BenchmarkReadLong(b *testing.B) {
	ctx := context.Background()
	dir := chaintest.InitRepo(b)
	r := chaintest.Open(b, dir)
	info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(b, "review-loop", loopYAML))
	if err != nil {
		b.Fatal(err)
	}
	th, err := r.StartThread(ctx, info, "task", dir)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 150; i++ {
		chaintest.Step(b, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": fmt.Sprintf("change %d", i)}, fmt.Sprintf("body %d\n\nmore text", i))
		chaintest.Step(b, r, th.ID, "reviewer", map[string]any{"$status": "rejected", "comments": fmt.Sprintf("comments %d", i)}, "")
	}
	chaintest.Git(b, dir, "repack", "-adq") // as after gc, or a fetch
	// Warm the entry cache.
	if _, err := r.Steps(ctx, mustThread(b, r, th.ID)); err != nil {
		b.Fatal(err)
	}
	for _, verb := range []string{"read", "steps"} {
		b.Run(verb, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				r := chaintest.Open(b, dir)
				b.StartTimer()
				t := mustThread(b, r, th.ID)
				var err error
				if verb == "read" {
					_, err = r.Read(ctx, t, chain.ReadOptions{})
				} else {
					_, err = r.Steps(ctx, t)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func mustThread(b *testing.B, r *chain.Repo, id chain.ThreadID) *chain.Thread {
	b.Helper()
	ctx := context.Background()
	if _, err := r.ResolveThread(ctx, string(id)); err != nil {
		b.Fatal(err)
	}
	t, err := r.CachedThread(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	return t
}
