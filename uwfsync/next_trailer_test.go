package uwfsync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

var (
	nextTrailerLine = regexp.MustCompile(`(?m)^` + chain.NextTrailer + `: .*$`)
	nodeTrailerLine = regexp.MustCompile(`(?m)^Uwf-Node: .*$`)
)

// TestFetchChecksNextTrailers: listings take a head's Uwf-Next trailer as
// the thread's state and its Uwf-Node trailer as the head's alias, so a
// fetched chain in which a commit's claim is not what routing it gives, or
// whose node trailer names another node, is refused, as a new ref and as a
// move of a known one; chains with true claims (a cancel's in a workflow
// whose steps carry none included) or none (written before the trailer)
// come in.
func TestFetchChecksNextTrailers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	info := register(t, a, "")
	th, err := a.StartThread(ctx, info, "true claims", "/")
	if err != nil {
		t.Fatal(err)
	}
	develop(t, a, th.ID, "first")
	// A cancel says "cancel" whatever the workflow routes on: a thread of
	// a workflow with conditions, cancelled, comes in.
	conditions, _, err := a.RegisterWorkflow(ctx, chaintest.Workflow(t, "skip", chaintest.SkipYAML))
	if err != nil {
		t.Fatal(err)
	}
	cancelled, err := a.StartThread(ctx, conditions, "cancelled", "/")
	if err != nil {
		t.Fatal(err)
	}
	chaintest.Step(t, a, cancelled.ID, "planner", map[string]any{"skip": false}, "")
	cur, err := a.Thread(ctx, cancelled.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Cancel(ctx, cur, "enough"); err != nil {
		t.Fatal(err)
	}
	forge := func(ref string, edit func(string) string) chain.ThreadID {
		return forgeThread(t, a, repos.A, ref, edit)
	}
	replace := func(re *regexp.Regexp, line string) func(string) string {
		return func(msg string) string {
			if !re.MatchString(msg) {
				t.Fatalf("no line matching %s in %q", re, msg)
			}
			return re.ReplaceAllString(msg, line)
		}
	}
	forgedEnd := forge(th.ID.Ref(), replace(nextTrailerLine, chain.NextTrailer+": finish"))
	forgedRole := forge(th.ID.Ref(), replace(nextTrailerLine, chain.NextTrailer+": role developer"))
	malformed := forge(th.ID.Ref(), replace(nextTrailerLine, chain.NextTrailer+": reviewer"))
	otherNode := forge(th.ID.Ref(), replace(nodeTrailerLine, "Uwf-Node: "+string(th.Head.Node.Alias)))
	old := forge(th.ID.Ref(), func(msg string) string { return nextTrailerLine.ReplaceAllString(msg, "") })
	chaintest.Git(t, repos.A, "push", "-q", "origin", "refs/uwf/*:refs/uwf/*")

	rep := mustFetch(t, b)
	wantResults(t, rep, repos.B, []wantResult{
		{th.ID, uwfsync.KindNew, ""},
		{cancelled.ID, uwfsync.KindNew, ""},
		{old, uwfsync.KindNew, ""},
		{forgedEnd, uwfsync.KindInvalid, `says "finish", but routing it gives "role reviewer"`},
		{forgedRole, uwfsync.KindInvalid, `says "role developer", but routing it gives "role reviewer"`},
		{malformed, uwfsync.KindInvalid, "malformed " + chain.NextTrailer},
		{otherNode, uwfsync.KindInvalid, "does not name its node"},
	})

	// A forged claim on a step of a thread B already has does not move it.
	before := chaintest.Git(t, repos.B, "rev-parse", th.ID.Ref())
	next := review(t, a, th.ID, "rejected", "again")
	forgeStep(t, repos.A, th.ID, next.Commit, before, replace(nextTrailerLine, chain.NextTrailer+": finish"))
	rep = mustFetch(t, b)
	if res := result(t, rep, th.ID.Ref()); res.Kind != uwfsync.KindInvalid || !strings.Contains(res.Reason, chain.NextTrailer) {
		t.Errorf("forged step: result %+v, want invalid for its %s trailer", res, chain.NextTrailer)
	}
	if got := chaintest.Git(t, repos.B, "rev-parse", th.ID.Ref()); got != before {
		t.Errorf("B's %s moved to %s on a forged step, want %s", th.ID, got, before)
	}
}

// TestFetchedClaimsList: a clone that fetched threads lists them cold from
// their heads' claims (enough threads for the listing's batch path), and
// shows what the clone that wrote them shows: state, role, head and prompt.
func TestFetchedClaimsList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	info := register(t, a, "")
	for i := range 33 {
		th, err := a.StartThread(ctx, info, fmt.Sprintf("task %d", i), "/")
		if err != nil {
			t.Fatal(err)
		}
		develop(t, a, th.ID, "first")
		switch i % 3 {
		case 1:
			review(t, a, th.ID, "rejected", "again")
		case 2:
			review(t, a, th.ID, "approved", "fine")
		}
	}
	chaintest.Git(t, repos.A, "push", "-q", "origin", "refs/uwf/*:refs/uwf/*")
	mustFetch(t, b)
	list := func(r *chain.Repo, dir string) map[chain.ThreadID]chain.Summary {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(dir, ".git", "uwf", "cache")); err != nil {
			t.Fatal(err)
		}
		sums, err := r.List(ctx, chain.ListOptions{All: true})
		if err != nil {
			t.Fatal(err)
		}
		out := map[chain.ThreadID]chain.Summary{}
		for _, s := range sums {
			out[s.Thread] = s
		}
		return out
	}
	want, got := list(a, repos.A), list(chaintest.Open(t, repos.B), repos.B)
	if len(got) != 33 || len(want) != 33 {
		t.Fatalf("B lists %d threads and A %d, want 33 each", len(got), len(want))
	}
	counts := map[string]int{}
	for id, w := range want {
		g := got[id]
		role := func(s chain.Summary) string {
			if s.CurrentRole == nil {
				return ""
			}
			return *s.CurrentRole
		}
		if g.Status != w.Status || role(g) != role(w) || g.Head != w.Head || g.HeadCommit != w.HeadCommit || g.Prompt != w.Prompt {
			t.Errorf("%s: B lists %s %q head %s, A %s %q head %s", id, g.Status, role(g), g.Head, w.Status, role(w), w.Head)
		}
		counts[string(w.Status)+" "+role(w)]++
	}
	if counts["idle reviewer"] != 11 || counts["idle developer"] != 11 || counts["completed "] != 11 {
		t.Errorf("A lists %v, want 11 idle at each role and 11 completed", counts)
	}
}
