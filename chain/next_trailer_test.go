package chain_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// nextTrailerOf returns the Uwf-Next trailer of commit ("" when none).
func nextTrailerOf(t *testing.T, dir string, commit gitobj.Hash) string {
	t.Helper()
	return chaintest.Git(t, dir, "log", "-1", "--format=%(trailers:key="+chain.NextTrailer+",valueonly)", commit.String())
}

var nextLine = regexp.MustCompile(`(?m)^` + chain.NextTrailer + `: .*\n?`)

// withoutNext drops the Uwf-Next trailer, as git-uwf wrote every commit
// before the trailer existed.
func withoutNext(msg string) string { return nextLine.ReplaceAllString(msg, "") }

// claimingNext replaces a message's Uwf-Next trailer by one of value.
func claimingNext(value string) func(string) string {
	return func(m string) string {
		return strings.TrimRight(withoutNext(m), "\n") + "\n" + chain.NextTrailer + ": " + value
	}
}

// registerIn registers a workflow in r from its YAML.
func registerIn(t *testing.T, r *chain.Repo, name, yamlText string) *chain.WorkflowInfo {
	t.Helper()
	info, _, err := r.RegisterWorkflow(context.Background(), chaintest.Workflow(t, name, yamlText))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// cancelThread cancels thread id at its head and returns the cancel.
func cancelThread(t *testing.T, r *chain.Repo, id chain.ThreadID) *chain.Entry {
	t.Helper()
	cur, err := r.Thread(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.Cancel(context.Background(), cur, "enough")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestNextTrailerWritten checks the claim each step and cancel commit
// carries: the next role, a pause, the end or the cancel, and none on a
// start commit or in a workflow whose routing sees more than the head step.
func TestNextTrailerWritten(t *testing.T) {
	ctx := context.Background()
	dir, r, loop := setup(t)
	suspend := registerIn(t, r, "suspend", suspendYAML)
	skip := registerIn(t, r, "skip", chaintest.SkipYAML)
	start := func(info *chain.WorkflowInfo) *chain.Thread {
		th, err := r.StartThread(ctx, info, "task", dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := nextTrailerOf(t, dir, th.Head.Commit); got != "" {
			t.Errorf("start commit: %s %q, want none", chain.NextTrailer, got)
		}
		return th
	}
	want := func(t *testing.T, e *chain.Entry, value string) {
		t.Helper()
		if got := nextTrailerOf(t, dir, e.Commit); got != value {
			t.Errorf("commit %s: %s %q, want %q", e.Commit, chain.NextTrailer, got, value)
		}
	}

	t.Run("review loop", func(t *testing.T) {
		th := start(loop)
		want(t, chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, ""), "role reviewer")
		want(t, chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "rejected", "comments": "c"}, ""), "role developer")
		want(t, chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, ""), "role reviewer")
		want(t, chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "approved"}, ""), "finish")
	})
	t.Run("pause", func(t *testing.T) {
		th := start(suspend)
		want(t, chaintest.Step(t, r, th.ID, "planner", map[string]any{"$status": "insufficient_info", "reason": "r"}, ""), "pause planner")
	})
	t.Run("cancel", func(t *testing.T) {
		th := start(loop)
		chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
		e := cancelThread(t, r, th.ID)
		want(t, e, "cancel")
	})
	t.Run("conditions see the whole chain", func(t *testing.T) {
		th := start(skip)
		// The worker's step routes to the end on the planner's word.
		want(t, chaintest.Step(t, r, th.ID, "planner", map[string]any{"skip": true}, ""), "")
		want(t, chaintest.Step(t, r, th.ID, "worker", map[string]any{"summary": "s"}, ""), "")
		other := start(skip)
		want(t, chaintest.Step(t, r, other.ID, "planner", map[string]any{"skip": false}, ""), "")
		e := cancelThread(t, r, other.ID)
		want(t, e, "cancel") // a cancel's state does not depend on routing
	})
	t.Run("templates that read the body", func(t *testing.T) {
		th := start(registerIn(t, r, "yield", yieldV1YAML))
		want(t, chaintest.Step(t, r, th.ID, "planner", map[string]any{"$status": "ready", "plan": "p"}, "the plan"), "")
	})
	chaintest.Fsck(t, dir)
}

// TestListReadsNextTrailer checks that a cold listing takes a step head's
// state from its Uwf-Next claim (a claim it trusts as it trusts Uwf-Start:
// sync checks fetched ones), that it reads the head node when the claim is
// missing or unreadable, and that the batch and usual paths agree on every
// claim git-uwf writes, failed attempts included.
func TestListReadsNextTrailer(t *testing.T) {
	ctx := context.Background()
	dir, r, loop := setup(t)
	suspend := registerIn(t, r, "suspend", suspendYAML)
	skip := registerIn(t, r, "skip", chaintest.SkipYAML)
	start := func(info *chain.WorkflowInfo, prompt string) *chain.Thread {
		th, err := r.StartThread(ctx, info, prompt, dir)
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	developer := func(id chain.ThreadID) {
		chaintest.Step(t, r, id, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
	}
	tests := []struct {
		name  string
		build func(prompt string) chain.ThreadID
		edit  func(string) string // of the head's message; nil keeps it
		// want is the listed status and role when the batch path must show
		// what a forged claim says rather than what routing gives.
		wantStatus chain.Status
		wantRole   string
	}{
		{name: "idle", build: func(p string) chain.ThreadID { th := start(loop, p); developer(th.ID); return th.ID }},
		{name: "completed", build: func(p string) chain.ThreadID {
			th := start(loop, p)
			developer(th.ID)
			chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "approved"}, "")
			return th.ID
		}},
		{name: "suspended", build: func(p string) chain.ThreadID {
			th := start(suspend, p)
			chaintest.Step(t, r, th.ID, "planner", map[string]any{"$status": "insufficient_info", "reason": "r"}, "")
			return th.ID
		}},
		{name: "cancelled", build: func(p string) chain.ThreadID {
			th := start(loop, p)
			developer(th.ID)
			cancelThread(t, r, th.ID)
			return th.ID
		}},
		{name: "failed attempt", build: func(p string) chain.ThreadID {
			th := start(loop, p)
			developer(th.ID)
			cur, err := r.Thread(ctx, th.ID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.RecordAttempt(ctx, cur, chain.Attempt{Role: "reviewer", Agent: "mock", Error: "the agent crashed", Phase: "agent"}); err != nil {
				t.Fatal(err)
			}
			return th.ID
		}},
		{name: "cancelled where conditions route", build: func(p string) chain.ThreadID {
			th := start(skip, p)
			chaintest.Step(t, r, th.ID, "planner", map[string]any{"skip": false}, "")
			cancelThread(t, r, th.ID)
			return th.ID
		}},
		{name: "no claim", build: func(p string) chain.ThreadID { th := start(loop, p); developer(th.ID); return th.ID }, edit: withoutNext},
		{name: "an unreadable claim", build: func(p string) chain.ThreadID { th := start(loop, p); developer(th.ID); return th.ID },
			edit: claimingNext("role two words")},
		{name: "a claim without its node", build: func(p string) chain.ThreadID { th := start(loop, p); developer(th.ID); return th.ID },
			edit: func(m string) string { return regexp.MustCompile(`(?m)^Uwf-Node: .*\n`).ReplaceAllString(m, "") }},
		{name: "a forged end", build: func(p string) chain.ThreadID { th := start(loop, p); developer(th.ID); return th.ID },
			edit: claimingNext("finish"), wantStatus: chain.StatusCompleted},
		{name: "a forged role", build: func(p string) chain.ThreadID { th := start(loop, p); developer(th.ID); return th.ID },
			edit: claimingNext("role developer"), wantStatus: chain.StatusIdle, wantRole: "developer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := tt.build(tt.name)
			if tt.edit != nil {
				rewriteHeadMessage(t, dir, id.Ref(), tt.edit)
			}
			if err := os.RemoveAll(filepath.Join(dir, ".git", "uwf", "cache")); err != nil {
				t.Fatal(err)
			}
			batch, usual, fellBack, err := chaintest.Open(t, dir).SummariesBothWays(ctx, 512)
			if err != nil {
				t.Fatal(err)
			}
			if fellBack[id] {
				t.Errorf("the batch path left the thread to the usual path")
			}
			if tt.wantStatus == "" {
				if !reflect.DeepEqual(batch[id], usual[id]) {
					t.Errorf("batch and usual differ:\nbatch %+v\nusual %+v", batch[id], usual[id])
				}
			} else {
				got := batch[id]
				role := ""
				if got.CurrentRole != nil {
					role = *got.CurrentRole
				}
				if got.Status != tt.wantStatus || role != tt.wantRole {
					t.Errorf("batch lists %s %q, want the claim's %s %q", got.Status, role, tt.wantStatus, tt.wantRole)
				}
				if usual[id].Status != chain.StatusIdle || *usual[id].CurrentRole != "reviewer" {
					t.Errorf("the usual path lists %+v, want idle at reviewer", usual[id])
				}
				// What the claim leaves out is as the usual path has it.
				got.Status, got.CurrentRole, got.SuspendedRole = usual[id].Status, usual[id].CurrentRole, usual[id].SuspendedRole
				if !reflect.DeepEqual(got, usual[id]) {
					t.Errorf("beside the state, batch and usual differ:\nbatch %+v\nusual %+v", got, usual[id])
				}
			}
			chaintest.Git(t, dir, "update-ref", "-d", id.Ref()) // the next case lists alone
		})
	}
}

// TestForkChecksNextClaim: a fork's head is the commit it starts from, and
// a listing shows that commit's Uwf-Next claim as the fork's state, so Fork
// refuses a commit whose claim or Uwf-Node trailer is false (one a remote
// sent and sync refused, left in a remote-tracking ref) and forks a commit
// with a true claim or none.
func TestForkChecksNextClaim(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	skip := registerIn(t, r, "skip", chaintest.SkipYAML)
	tests := []struct {
		name  string
		info  *chain.WorkflowInfo
		edit  func(string) string
		error string // "" when the fork is made
	}{
		{"as written", info, func(m string) string { return m }, ""},
		{"no trailer", info, withoutNext, ""},
		{"another role", info, claimingNext("role developer"), `routing it gives "role reviewer"`},
		{"the end", info, claimingNext("finish"), `routing it gives "role reviewer"`},
		{"a cancel", info, claimingNext("cancel"), `routing it gives "role reviewer"`},
		{"malformed", info, claimingNext("next reviewer"), "malformed " + chain.NextTrailer},
		{"another node", info, func(m string) string {
			return regexp.MustCompile(`(?m)^Uwf-Node: .*$`).ReplaceAllString(m, "Uwf-Node: 0123456789ABC")
		}, "does not name its node"},
		{"a workflow that routes on the chain", skip, claimingNext("role worker"), "routes on more than the head step"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := r.StartThread(ctx, tt.info, tt.name, dir)
			if err != nil {
				t.Fatal(err)
			}
			if tt.info == info {
				chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
			} else {
				chaintest.Step(t, r, th.ID, "planner", map[string]any{"skip": false}, "")
			}
			wantFork(t, r, gitobj.NewHash(rewriteHeadMessage(t, dir, th.ID.Ref(), tt.edit)), tt.error)
		})
	}
}

// TestNextClaims checks the claims of a chain as sync reads them: every
// commit git-uwf writes passes, a cancel in any workflow included, and a
// claim on a commit that pins another workflow than its root is refused
// even when it is what that workflow routes to.
func TestNextClaims(t *testing.T) {
	ctx := context.Background()
	dir, r, loop := setup(t)
	skip := registerIn(t, r, "skip", chaintest.SkipYAML)
	// Another workflow that routes a developer's review_needed to the
	// reviewer too, so the forged commit's claim is true of its own tree.
	other := registerIn(t, r, "review-loop-2", strings.Replace(loopYAML, "name: review-loop", "name: review-loop-2", 1))
	check := func(t *testing.T, id chain.ThreadID) error {
		t.Helper()
		var entries []*chain.Entry
		for c := gitobj.NewHash(chaintest.Git(t, dir, "rev-parse", id.Ref())); !c.IsZero(); {
			e, err := r.Entry(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			entries = append([]*chain.Entry{e}, entries...)
			c = e.Parent
		}
		claims := r.NextClaims(id, entries[0].Commit)
		for _, e := range entries {
			if err := claims.Check(ctx, e, chaintest.Git(t, dir, "log", "-1", "--format=%B", e.Commit.String())); err != nil {
				return err
			}
		}
		return nil
	}

	// Chains git-uwf writes pass, a cancel in any workflow included.
	type step struct {
		role   string
		output map[string]any
	}
	for _, tt := range []struct {
		name  string
		info  *chain.WorkflowInfo
		steps []step
	}{
		{"as written", loop, []step{
			{"developer", map[string]any{"$status": "review_needed", "summary": "s"}},
			{"reviewer", map[string]any{"$status": "rejected", "comments": "c"}},
		}},
		{"a cancel where conditions route", skip, []step{{"planner", map[string]any{"skip": false}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			th, err := r.StartThread(ctx, tt.info, tt.name, dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range tt.steps {
				chaintest.Step(t, r, th.ID, st.role, st.output, "")
			}
			cancelThread(t, r, th.ID)
			if err := check(t, th.ID); err != nil {
				t.Errorf("claims of a chain git-uwf wrote: %v", err)
			}
		})
	}
	t.Run("another pinned workflow", func(t *testing.T) {
		th, err := r.StartThread(ctx, loop, "pinned", dir)
		if err != nil {
			t.Fatal(err)
		}
		chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "")
		head := chaintest.Git(t, dir, "rev-parse", th.ID.Ref())
		var lines []string
		for _, l := range strings.Split(chaintest.Git(t, dir, "ls-tree", head), "\n") {
			if !strings.HasSuffix(l, "\tworkflow") {
				lines = append(lines, l)
			}
		}
		lines = append(lines, "040000 tree "+other.Tree.String()+"\tworkflow")
		tree := gitIn(t, dir, strings.Join(lines, "\n")+"\n", "mktree", "--missing")
		msg := chaintest.Git(t, dir, "log", "-1", "--format=%B", head)
		c := chaintest.Git(t, dir, "commit-tree", tree, "-p", head+"^", "-m", msg)
		chaintest.Git(t, dir, "update-ref", th.ID.Ref(), c)
		err = check(t, th.ID)
		if err == nil || !strings.Contains(err.Error(), "pins another start node or workflow") {
			t.Errorf("a claim on a commit pinning another workflow: %v, want it refused", err)
		}
		wantFork(t, r, gitobj.NewHash(c), "pins another start node or workflow")
	})
}
