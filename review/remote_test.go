package review_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/review"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// TestBuildRemote checks --remote against a bare remote and a second clone:
// a thread not pushed, a step not pushed, a remote head this clone has not
// fetched, and all well after push and fetch.
func TestBuildRemote(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	chaintest.Git(t, f.dir, "init", "-q", "--bare", bare)
	chaintest.Git(t, f.dir, "remote", "add", "origin", bare)
	f.commit(t, "code", trailer(f.id, f.start)) // names step 1
	check := func(want string) {
		t.Helper()
		rep, err := review.Build(ctx, f.repo, review.Options{Range: "main..HEAD", Remote: "origin"})
		if err != nil {
			t.Fatal(err)
		}
		if want == "" {
			if len(rep.Problems) != 0 {
				t.Errorf("problems = %v, want none", rep.Problems)
			}
			return
		}
		if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, want) {
			t.Errorf("problems = %v, want one containing %q", rep.Problems, want)
		}
	}
	check("the thread is not there, run git uwf push origin")

	if _, err := uwfsync.Push(ctx, f.repo, "origin", uwfsync.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	check("")

	// A step made after the push, named by a new code commit.
	s3 := chaintest.Step(t, f.repo, f.id, "developer", map[string]any{"$status": "review_needed"}, "Again.")
	f.commit(t, "more code", trailer(f.id, f.s2))
	check("the remote's thread does not hold it yet, run git uwf push origin")
	if _, err := uwfsync.Push(ctx, f.repo, "origin", uwfsync.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	check("")

	// Another clone steps the thread and pushes; this one has not fetched.
	other := filepath.Join(t.TempDir(), "other")
	chaintest.Git(t, f.dir, "clone", "-q", bare, other)
	ro := chaintest.Open(t, other)
	if _, err := uwfsync.Fetch(ctx, ro, "origin"); err != nil {
		t.Fatal(err)
	}
	chaintest.Step(t, ro, f.id, "reviewer", map[string]any{"$status": "approved"}, "Yes.")
	if _, err := uwfsync.Push(ctx, ro, "origin", uwfsync.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	// The remote's head is unknown here, so it cannot show the step is there.
	f.commit(t, "code after", trailer(f.id, s3))
	rep, err := review.Build(ctx, f.repo, review.Options{Range: "main..HEAD", Remote: "origin"})
	if err != nil {
		t.Fatal(err)
	}
	var fetchHints int
	for _, p := range rep.Problems {
		if strings.Contains(p.Message, "at a commit this repository has not fetched") && strings.HasSuffix(p.Message, "run git uwf fetch origin") {
			fetchHints++
		}
	}
	if len(rep.Problems) != 3 || fetchHints != 2 || !strings.Contains(rep.Problems[0].Message, "has no step on top of") {
		t.Errorf("problems = %v, want the unknown step and two hints to fetch origin", rep.Problems)
	}
	if _, err := uwfsync.Fetch(ctx, f.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	// After the fetch the step the last commit names (the reviewer's step,
	// made in the other clone) exists, and everything is on the remote.
	check("")

	// A thread only the remote has: the message names the remote to fetch.
	info, err := ro.FindWorkflow(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	th, err := ro.StartThread(ctx, info, "Another task", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := uwfsync.Push(ctx, ro, "origin", uwfsync.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	f.commit(t, "code of a thread not fetched", trailer(th.ID, th.Head))
	check("thread " + string(th.ID) + " is not here but remote origin has it: run git uwf fetch origin")
}
