package chain_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

const yieldV1YAML = `version: 1
name: yield
roles:
  planner:
    frontmatter:
      type: object
      properties:
        $status: {const: ready}
        plan: {type: string}
      required: [$status, plan]
  worker:
    frontmatter:
      type: object
      properties:
        $status: {const: done}
      required: [$status]
graph:
  $START:
    new: {role: planner, prompt: "Plan."}
  planner:
    ready: {role: worker, prompt: "Do {{ plan }}; the planner wrote: {{ _body }}"}
  worker:
    done: {role: $END, prompt: "Done."}
`

// yieldStep stores a yield ({$status: $SUSPEND, reason}) under the built-in
// suspend schema, as agentkit does, and appends it.
func yieldStep(r *chain.Repo, id chain.ThreadID, role, reason string) (*chain.Entry, error) {
	ctx := context.Background()
	th, err := r.Thread(ctx, id)
	if err != nil {
		return nil, err
	}
	schema, err := r.Schema("uwf.SuspendOutput")
	if err != nil {
		return nil, err
	}
	out, err := r.Store.Put(schema, map[string]any{"$status": "$SUSPEND", "reason": reason})
	if err != nil {
		return nil, err
	}
	sn := chain.StepNode{Start: th.StartAlias, Prev: th.HeadStepAlias(), Role: role, Output: out.Alias,
		Agent: "test", EdgePrompt: "do it", StartedAtMs: 1, CompletedAtMs: 2, Cwd: "/"}
	stepSchema, err := r.Schema("uwf.StepNode")
	if err != nil {
		return nil, err
	}
	ref, err := r.Store.Put(stepSchema, sn)
	if err != nil {
		return nil, err
	}
	return r.AppendStep(ctx, th, ref, chain.AppendOptions{})
}

func TestYieldOnlyInVersion1(t *testing.T) {
	ctx := context.Background()
	legacyYAML := strings.NewReplacer("version: 1\n", "", "new:", "_:", "{{ _body }}", "{{plan}}", "{{ plan }}", "{{plan}}").Replace(yieldV1YAML)
	tests := []struct {
		name, wfName, yaml string
		wantErr            bool
	}{
		{"version 1 accepts a yield", "yield", yieldV1YAML, false},
		{"the older dialect refuses it", "yield", legacyYAML, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := chaintest.InitRepo(t)
			r := chaintest.Open(t, dir)
			info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, tt.wfName, tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			th, err := r.StartThread(ctx, info, "task", dir)
			if err != nil {
				t.Fatal(err)
			}
			_, err = yieldStep(r, th.ID, "planner", "Which database?")
			if tt.wantErr {
				if !errors.Is(err, chain.ErrBadStep) {
					t.Fatalf("got %v, want ErrBadStep", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			th, err = r.Thread(ctx, th.ID)
			if err != nil {
				t.Fatal(err)
			}
			st, err := r.State(ctx, th)
			if err != nil {
				t.Fatal(err)
			}
			if st.Status != chain.StatusSuspended || st.SuspendedRole != "planner" || st.SuspendMessage != "Which database?" {
				t.Errorf("state = %+v, want suspended at planner with the reason", st)
			}
			chaintest.Fsck(t, dir)
		})
	}
}

// TestBodyInRouting: a version 1 template reads the head step's body.
func TestBodyInRouting(t *testing.T) {
	ctx := context.Background()
	dir := chaintest.InitRepo(t)
	r := chaintest.Open(t, dir)
	info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "yield", yieldV1YAML))
	if err != nil {
		t.Fatal(err)
	}
	th, err := r.StartThread(ctx, info, "task", dir)
	if err != nil {
		t.Fatal(err)
	}
	chaintest.Step(t, r, th.ID, "planner", map[string]any{"$status": "ready", "plan": "split it"}, "Split <b>parser</b> first.\n")
	th, err = r.Thread(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.State(ctx, th)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Do split it; the planner wrote: Split <b>parser</b> first.\n"; st.Next.Prompt != want {
		t.Errorf("prompt = %q, want %q", st.Next.Prompt, want)
	}
	// The stored workflow read back from its pinned tree keeps its dialect.
	if th.Workflow.Workflow.Version != 1 {
		t.Errorf("pinned workflow version = %d, want 1", th.Workflow.Workflow.Version)
	}
	again, err := r.LoadWorkflow(ctx, info.Alias)
	if err != nil || again.Workflow.Version != 1 {
		t.Errorf("LoadWorkflow: version %v, %v", again, err)
	}
}

func TestParseStatusEnd(t *testing.T) {
	for in, want := range map[string]chain.Status{"end": chain.StatusCompleted, "completed": chain.StatusCompleted, "idle": chain.StatusIdle} {
		got, err := chain.ParseStatus(in)
		if err != nil || got != want {
			t.Errorf("ParseStatus(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := chain.ParseStatus("ended"); err == nil || !strings.Contains(err.Error(), "completed (or end)") {
		t.Errorf("ParseStatus(ended): %v", err)
	}
}

// TestListRoutesWithBody: thread list (its batched path included) routes
// a version 1 workflow whose next prompt is only the previous body, as
// thread show does: not failed for an empty prompt.
func TestListRoutesWithBody(t *testing.T) {
	ctx := context.Background()
	dir := chaintest.InitRepo(t)
	r := chaintest.Open(t, dir)
	onlyBody := strings.Replace(yieldV1YAML, `"Do {{ plan }}; the planner wrote: {{ _body }}"`, `"{{ _body }}"`, 1)
	info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "yield", onlyBody))
	if err != nil {
		t.Fatal(err)
	}
	var ids []chain.ThreadID
	for range 33 { // more than listBatchMin: the batched path

		th, err := r.StartThread(ctx, info, "task", dir)
		if err != nil {
			t.Fatal(err)
		}
		chaintest.Step(t, r, th.ID, "planner", map[string]any{"$status": "ready", "plan": "p"}, "Go and split the parser.\n")
		ids = append(ids, th.ID)
	}
	r2 := chaintest.Open(t, dir) // a fresh process: no caches in memory
	list, err := r2.List(ctx, chain.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(ids) {
		t.Fatalf("%d threads listed, want %d", len(list), len(ids))
	}
	for _, s := range list {
		if s.Status != chain.StatusIdle || s.CurrentRole == nil || *s.CurrentRole != "worker" {
			t.Errorf("thread %s: status %s (%s), want idle at worker", s.Thread, s.Status, s.Error)
		}
	}
}
