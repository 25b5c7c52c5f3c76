package chain_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// Three workflows nested two deep: top's role mid is played by middle,
// whose role ask is played by asker, whose planner may suspend. plain has
// the same role as asker, played by an agent.
const (
	askerYAML = `name: asker
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
	middleYAML = `name: middle
roles:
  ask:
    workflow: asker
    frontmatter:
      type: object
      properties:
        $status: {const: ready}
      required: [$status]
graph:
  $START:
    _: {role: ask, prompt: "Ask around."}
  ask:
    ready: {role: $END, prompt: "Done."}
`
	topYAML = `name: top
roles:
  mid:
    workflow: middle
    frontmatter:
      type: object
      properties:
        $status: {const: ready}
      required: [$status]
graph:
  $START:
    _: {role: mid, prompt: "Delegate."}
  mid:
    ready: {role: $END, prompt: "Done."}
`
	plainYAML = `name: plain
roles:
  planner:
    frontmatter:
      type: object
      properties:
        $status: {const: ready}
      required: [$status]
graph:
  $START:
    _: {role: planner, prompt: "Plan."}
  planner:
    ready: {role: $END, prompt: "Done."}
`
)

// wantState is what State and List must say of one thread.
type wantState struct {
	status  chain.Status
	child   chain.ThreadID // the suspended child it waits for
	role    string         // SuspendedRole
	message string         // SuspendMessage (State only: List has none)
}

// TestSuspendedChildSuspendsParent: a thread whose current role is played
// by a suspended child thread (directly, or through a child waiting for
// its own suspended child) is suspended at that role with the child's
// question, in State and in both listing paths (the cat-file batch of a
// cold listing, and the summary cache), and idle again once the child is
// answered, even though the parent's head (the cache key) never moved.
// A thread at the child id of a role played by an agent changes nothing.
func TestSuspendedChildSuspendsParent(t *testing.T) {
	ctx := context.Background()
	dir := chaintest.InitRepo(t)
	repo := chaintest.Open(t, dir)
	infos := map[string]*chain.WorkflowInfo{}
	for _, w := range []struct{ name, yaml string }{{"asker", askerYAML}, {"middle", middleYAML}, {"top", topYAML}, {"plain", plainYAML}} {
		info, _, err := repo.RegisterWorkflow(ctx, chaintest.Workflow(t, w.name, w.yaml))
		if err != nil {
			t.Fatal(err)
		}
		infos[w.name] = info
	}
	start := func(wf string) *chain.Thread {
		t.Helper()
		th, err := repo.StartThread(ctx, infos[wf], "the task", dir)
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	child := func(parent *chain.Thread, role, wf string) *chain.Thread {
		t.Helper()
		th, err := repo.StartChild(ctx, parent, role, infos[wf], "the child task", ".")
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	// Enough other threads that a cold listing takes the batch path.
	for range 40 {
		start("plain")
	}
	top := start("top")
	mid := child(top, "mid", "middle")
	ask := child(mid, "ask", "asker")
	plain := start("plain")
	// Not plain's child (an agent plays planner), though at its child id.
	squatter := child(plain, "planner", "asker")

	cachePath := filepath.Join(repo.UwfDir(), "cache", "summaries")
	check := func(t *testing.T, want map[chain.ThreadID]wantState) {
		t.Helper()
		for id, w := range want {
			th, err := repo.Thread(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			st, err := repo.State(ctx, th)
			if err != nil {
				t.Fatal(err)
			}
			if st.Status != w.status || st.SuspendedChild != w.child || st.SuspendedRole != w.role || st.SuspendMessage != w.message {
				t.Errorf("State(%s) = %s, child %q, role %q, message %q; want %s, %q, %q, %q",
					id, st.Status, st.SuspendedChild, st.SuspendedRole, st.SuspendMessage, w.status, w.child, w.role, w.message)
			}
		}
		// As the cache was left, cold (no cache: the batch path), warm.
		for _, listing := range []string{"as left", "cold", "warm"} {
			if listing == "cold" {
				if err := os.Remove(cachePath); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
			sums, err := repo.List(ctx, chain.ListOptions{All: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(cachePath); err != nil {
				t.Fatalf("%s listing wrote no cache: %v", listing, err)
			}
			got := map[chain.ThreadID]chain.Summary{}
			for _, s := range sums {
				got[s.Thread] = s
			}
			for id, w := range want {
				s, ok := got[id]
				if !ok {
					t.Errorf("%s listing: %s missing", listing, id)
					continue
				}
				var child chain.ThreadID
				if s.SuspendedChild != nil {
					child = *s.SuspendedChild
				}
				role := ""
				if s.SuspendedRole != nil {
					role = *s.SuspendedRole
				}
				if s.Status != w.status || child != w.child || role != w.role {
					t.Errorf("%s listing: %s is %s, child %q, role %q; want %s, %q, %q", listing, id, s.Status, child, role, w.status, w.child, w.role)
				}
			}
			// The status filter sees the same status.
			suspended, err := repo.List(ctx, chain.ListOptions{Statuses: []chain.Status{chain.StatusSuspended}})
			if err != nil {
				t.Fatal(err)
			}
			in := map[chain.ThreadID]bool{}
			for _, s := range suspended {
				in[s.Thread] = true
			}
			for id, w := range want {
				if in[id] != (w.status == chain.StatusSuspended) {
					t.Errorf("%s listing --status suspended: has %s = %v, want %v", listing, id, in[id], !in[id])
				}
			}
		}
	}

	const question = "More information needed: which API?"
	suspend := map[string]any{"$status": "insufficient_info", "reason": "which API?"}
	phases := []struct {
		name string
		step func(t *testing.T)
		want map[chain.ThreadID]wantState
	}{
		{"all idle", func(*testing.T) {}, map[chain.ThreadID]wantState{
			top.ID: {status: chain.StatusIdle}, mid.ID: {status: chain.StatusIdle}, ask.ID: {status: chain.StatusIdle},
			plain.ID: {status: chain.StatusIdle}, squatter.ID: {status: chain.StatusIdle},
		}},
		{"child suspended", func(t *testing.T) {
			chaintest.Step(t, repo, ask.ID, "planner", suspend, "")
			chaintest.Step(t, repo, squatter.ID, "planner", suspend, "")
		}, map[chain.ThreadID]wantState{
			ask.ID:      {status: chain.StatusSuspended, role: "planner", message: question},
			mid.ID:      {status: chain.StatusSuspended, child: ask.ID, role: "ask", message: question},
			top.ID:      {status: chain.StatusSuspended, child: mid.ID, role: "mid", message: question},
			squatter.ID: {status: chain.StatusSuspended, role: "planner", message: question},
			plain.ID:    {status: chain.StatusIdle},
		}},
		{"child answered", func(t *testing.T) {
			chaintest.Step(t, repo, ask.ID, "planner", map[string]any{"$status": "ready"}, "")
		}, map[chain.ThreadID]wantState{
			ask.ID: {status: chain.StatusCompleted},
			mid.ID: {status: chain.StatusIdle},
			top.ID: {status: chain.StatusIdle},
		}},
	}
	for _, ph := range phases {
		t.Run(ph.name, func(t *testing.T) {
			ph.step(t)
			check(t, ph.want)
		})
	}
}

// TestForgedChildDoesNotSuspendParent: a suspended thread at a parent's
// child id makes the parent suspended (in State, in cold and warm
// listings) and is its ActiveChild only when its start commit links back
// to the parent's head and role.
func TestForgedChildDoesNotSuspendParent(t *testing.T) {
	tests := []struct {
		name string
		// link is the Uwf-Parent value of the thread at the child id: ""
		// for none; PARENT and HEAD are replaced by the parent's id and
		// head commit.
		link          string
		wantSuspended bool
	}{
		{"no parent link", "", false},
		{"link to another role", "PARENT HEAD review", false},
		{"link to another head", "PARENT 0123456789abcdef0123456789abcdef01234567 ask", false},
		{"link to another thread", "01M86ZCEFF4MS140TN5H88HQXG HEAD ask", false},
		{"link back", "PARENT HEAD ask", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := chaintest.InitRepo(t)
			repo := chaintest.Open(t, dir)
			asker, parent := askingParent(t, repo, dir)
			// A thread of asker, its start commit rewritten with tt.link
			// and put at the parent's child id, then suspended.
			id := forgeChild(t, dir, repo, asker, parent, "ask", tt.link)
			chaintest.Step(t, repo, id, "planner", map[string]any{"$status": "insufficient_info", "reason": "which API?"}, "")

			want := chain.StatusIdle
			var wantChild chain.ThreadID
			if tt.wantSuspended {
				want, wantChild = chain.StatusSuspended, id
			}
			st, err := repo.State(ctx, parent)
			if err != nil {
				t.Fatal(err)
			}
			if st.Status != want || st.SuspendedChild != wantChild {
				t.Errorf("State = %s, child %q; want %s, %q", st.Status, st.SuspendedChild, want, wantChild)
			}
			active, err := repo.ActiveChild(ctx, parent)
			if err != nil {
				t.Fatal(err)
			}
			if got := active != nil; got != tt.wantSuspended {
				t.Errorf("ActiveChild = %v, want a child: %v", active, tt.wantSuspended)
			}
			for _, listing := range []string{"cold", "warm"} {
				if listing == "cold" {
					if err := os.RemoveAll(filepath.Join(repo.UwfDir(), "cache")); err != nil {
						t.Fatal(err)
					}
				}
				sums, err := repo.List(ctx, chain.ListOptions{All: true})
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, s := range sums {
					if s.Thread != parent.ID {
						continue
					}
					found = true
					var child chain.ThreadID
					if s.SuspendedChild != nil {
						child = *s.SuspendedChild
					}
					if s.Status != want || child != wantChild {
						t.Errorf("%s listing: parent is %s, child %q; want %s, %q", listing, s.Status, child, want, wantChild)
					}
				}
				if !found {
					t.Errorf("%s listing: parent missing", listing)
				}
			}
		})
	}
}

// TestSuspendedChildOnTheParentsSecond: a parent whose id and head are on
// the same whole second as its child (a fixed clock) is still found
// suspended by a listing, cold and warm: the child's id shares the
// parent's time, and only a thread alone at its head's time is skipped.
func TestSuspendedChildOnTheParentsSecond(t *testing.T) {
	ctx := context.Background()
	dir := chaintest.InitRepo(t)
	second := time.Unix(1_700_000_000, 0)
	repo, err := chain.Open(ctx, dir, chain.Options{Now: func() time.Time { return second }})
	if err != nil {
		t.Fatal(err)
	}
	asker, parent := askingParent(t, repo, dir)
	id := forgeChild(t, dir, repo, asker, parent, "ask", "PARENT HEAD ask")
	chaintest.Step(t, repo, id, "planner", map[string]any{"$status": "insufficient_info", "reason": "which API?"}, "")
	// Only the parent and its child stay, both at the same second.
	for _, ref := range strings.Fields(chaintest.Git(t, dir, "for-each-ref", "--format=%(refname)", chain.ThreadsPrefix)) {
		if ref != parent.ID.Ref() && ref != id.Ref() {
			chaintest.Git(t, dir, "update-ref", "-d", ref)
		}
	}
	if parent.ID.Time() != second || id.Time() != second {
		t.Fatalf("the fixture is not on one second: parent %s, child %s", parent.ID.Time(), id.Time())
	}
	for _, listing := range []string{"cold", "warm"} {
		if listing == "cold" {
			if err := os.RemoveAll(filepath.Join(repo.UwfDir(), "cache")); err != nil {
				t.Fatal(err)
			}
		}
		sums, err := repo.List(ctx, chain.ListOptions{All: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != 2 {
			t.Fatalf("%s listing: %d threads, want the parent and the child", listing, len(sums))
		}
		for _, s := range sums {
			if s.Thread == parent.ID && (s.Status != chain.StatusSuspended || s.SuspendedChild == nil || *s.SuspendedChild != id) {
				t.Errorf("%s listing: parent is %s, child %v; want suspended by %s", listing, s.Status, s.SuspendedChild, id)
			}
		}
	}
}

// askingParent registers the asker and middle workflows and starts a
// thread of middle, whose "ask" role a thread of asker plays; it returns
// asker's info and that parent.
func askingParent(t *testing.T, repo *chain.Repo, dir string) (*chain.WorkflowInfo, *chain.Thread) {
	t.Helper()
	ctx := context.Background()
	infos := map[string]*chain.WorkflowInfo{}
	for _, w := range []struct{ name, yaml string }{{"asker", askerYAML}, {"middle", middleYAML}} {
		info, _, err := repo.RegisterWorkflow(ctx, chaintest.Workflow(t, w.name, w.yaml))
		if err != nil {
			t.Fatal(err)
		}
		infos[w.name] = info
	}
	parent, err := repo.StartThread(ctx, infos["middle"], "the task", dir)
	if err != nil {
		t.Fatal(err)
	}
	return infos["asker"], parent
}
