package thread_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdtest"
)

// TestReadColdAndWarm: `thread read` and `thread steps` print the same
// bytes whether the caches under .git/uwf/cache are missing (a cold walk,
// long enough to be read through git in a batch), just written, or partly
// there (a fork that shares the history of a walked thread).
func TestReadColdAndWarm(t *testing.T) {
	dir := chaintest.InitRepo(t)
	repo := chaintest.Open(t, dir)
	if _, _, err := repo.RegisterWorkflow(t.Context(), chaintest.Workflow(t, "loop", loop)); err != nil {
		t.Fatal(err)
	}
	var started struct{ Thread chain.ThreadID }
	if err := json.Unmarshal([]byte(cmdtest.MustRun(t, dir, now, "thread", "start", "loop", "-p", "a long task", "--format", "json")), &started); err != nil {
		t.Fatal(err)
	}
	id := started.Thread
	var mid *chain.Entry
	for i := 0; i < 40; i++ {
		e := chaintest.Step(t, repo, id, "developer", map[string]any{"$status": "review_needed", "summary": strings.Repeat("s", i)}, "body "+strings.Repeat("b", i))
		chaintest.Step(t, repo, id, "reviewer", map[string]any{"$status": "rejected", "comments": "c"}, "")
		if i == 30 {
			mid = e
		}
	}
	var forked struct{ Thread chain.ThreadID }
	if err := json.Unmarshal([]byte(cmdtest.MustRun(t, dir, now, "thread", "fork", mid.Commit.String(), "--format", "json")), &forked); err != nil {
		t.Fatal(err)
	}
	chaintest.Step(t, repo, forked.Thread, "reviewer", map[string]any{"$status": "approved"}, "fork body")

	cache := filepath.Join(dir, ".git", "uwf", "cache")
	commands := [][]string{
		{"thread", "read", string(id)},
		{"thread", "read", string(id), "--quota", "100000"},
		{"thread", "read", string(id), "--before", string(mid.Node.Alias), "--start"},
		{"thread", "steps", string(id)},
		{"thread", "steps", string(id), "--format", "json"},
		{"thread", "read", string(forked.Thread), "--quota", "100000"},
		{"thread", "steps", string(forked.Thread)},
	}
	for _, args := range commands {
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			if err := os.RemoveAll(cache); err != nil {
				t.Fatal(err)
			}
			cold := cmdtest.MustRun(t, dir, now, args...)
			warm := cmdtest.MustRun(t, dir, now, args...)
			if cold != warm {
				t.Fatalf("cold and warm output differ:\n--- cold\n%s\n--- warm\n%s", cold, warm)
			}
			if !strings.Contains(cold, "developer") {
				t.Fatalf("output shows no step:\n%s", cold)
			}
		})
	}
	// A walk that finds part of its chain cached (the history a fork
	// shares with its origin) reads only the rest from git.
	for _, tt := range []struct{ first, then []string }{
		{[]string{"thread", "steps", string(id)}, []string{"thread", "read", string(forked.Thread), "--quota", "100000"}},
		{[]string{"thread", "read", string(forked.Thread)}, []string{"thread", "steps", string(id)}},
	} {
		if err := os.RemoveAll(cache); err != nil {
			t.Fatal(err)
		}
		want := cmdtest.MustRun(t, dir, now, tt.then...)
		if err := os.RemoveAll(cache); err != nil {
			t.Fatal(err)
		}
		cmdtest.MustRun(t, dir, now, tt.first...)
		if got := cmdtest.MustRun(t, dir, now, tt.then...); got != want {
			t.Fatalf("%v after %v differs from a cold one:\n--- got\n%s\n--- want\n%s", tt.then, tt.first, got, want)
		}
	}
}
