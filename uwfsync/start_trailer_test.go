package uwfsync_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

var startTrailerLine = regexp.MustCompile(`(?m)^` + chain.StartTrailer + `: .*$`)

// TestFetchChecksStartTrailers: listings take a step's Uwf-Start trailer
// as the thread's start commit, so a fetched chain whose trailer names
// another commit or branch is refused, as a new ref and as a move of a
// known one, while chains with true trailers or none (written before the
// trailer) come in.
func TestFetchChecksStartTrailers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	info := register(t, a, "")
	on := func(prompt, branch string) *chain.Thread {
		th, err := a.StartThreadOn(ctx, info, prompt, "/", chain.Code{Branch: branch})
		if err != nil {
			t.Fatal(err)
		}
		develop(t, a, th.ID, prompt)
		return th
	}
	forge := func(ref string, edit func(string) string) chain.ThreadID {
		return forgeThread(t, a, repos.A, ref, edit)
	}
	replace := func(value string) func(string) string {
		return func(msg string) string {
			if !startTrailerLine.MatchString(msg) {
				t.Fatalf("no %s trailer in %q", chain.StartTrailer, msg)
			}
			return startTrailerLine.ReplaceAllString(msg, chain.StartTrailer+": "+value)
		}
	}

	th := on("true trailers", "main")
	other := on("another start", "main")
	root := th.Head.Commit.String()
	otherStart := forge(th.ID.Ref(), replace(other.Head.Commit.String()+" main"))
	otherBranch := forge(th.ID.Ref(), replace(root+" elsewhere"))
	noBranch := forge(th.ID.Ref(), replace(root))
	malformed := forge(th.ID.Ref(), replace("main"))
	old := forge(th.ID.Ref(), func(msg string) string { return startTrailerLine.ReplaceAllString(msg, "") })
	chaintest.Git(t, repos.A, "push", "-q", "origin", "refs/uwf/*:refs/uwf/*")

	rep := mustFetch(t, b)
	wantResults(t, rep, repos.B, []wantResult{
		{th.ID, uwfsync.KindNew, ""},
		{other.ID, uwfsync.KindNew, ""},
		{old, uwfsync.KindNew, ""},
		{otherStart, uwfsync.KindInvalid, "but its chain starts at " + root},
		{otherBranch, uwfsync.KindInvalid, `names the branch "elsewhere"`},
		{noBranch, uwfsync.KindInvalid, `names the branch ""`},
		{malformed, uwfsync.KindInvalid, "malformed " + chain.StartTrailer},
	})

	// A forged step on a thread B already has does not move it.
	before := chaintest.Git(t, repos.B, "rev-parse", th.ID.Ref())
	next := develop(t, a, th.ID, "next")
	forgeStep(t, repos.A, th.ID, next.Commit, before, replace(other.Head.Commit.String()+" main"))
	rep = mustFetch(t, b)
	if res := result(t, rep, th.ID.Ref()); res.Kind != uwfsync.KindInvalid || !strings.Contains(res.Reason, chain.StartTrailer) {
		t.Errorf("forged step: result %+v, want invalid for its %s trailer", res, chain.StartTrailer)
	}
	if got := chaintest.Git(t, repos.B, "rev-parse", th.ID.Ref()); got != before {
		t.Errorf("B's %s moved to %s on a forged step, want %s", th.ID, got, before)
	}

	// What came in lists with its real start.
	sums, err := chaintest.Open(t, repos.B).List(ctx, chain.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		want := other.Head.Commit.String()
		if s.Thread != other.ID {
			want = root
		}
		if s.StartCommit != want || s.Branch != "main" {
			t.Errorf("B lists %s with start %s branch %q, want %s main", s.Thread, s.StartCommit, s.Branch, want)
		}
	}
}
