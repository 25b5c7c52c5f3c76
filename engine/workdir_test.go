package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/engine"
	"github.com/git-uwf/git-uwf/internal/workdir"
)

// threadIn starts a thread of the fixture's workflow recording cwd.
func threadIn(t *testing.T, fx *fixture, cwd string) chain.ThreadID {
	t.Helper()
	info, err := fx.repo.FindWorkflow(context.Background(), "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	th, err := fx.repo.StartThread(context.Background(), info, "work somewhere", cwd)
	if err != nil {
		t.Fatal(err)
	}
	return th.ID
}

func headOf(t *testing.T, fx *fixture, id chain.ThreadID) *chain.Thread {
	t.Helper()
	th, err := fx.repo.Thread(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// TestStepDirectory: the recorded directory is resolved against the local
// work tree, the agent runs there (its StepNode records where, relative to
// the top), and a directory outside the work tree fails before any agent
// starts, keeping the head and recording no attempt.
func TestStepDirectory(t *testing.T) {
	fx := newFixture(t)
	top, err := filepath.EvalSymlinks(fx.dir)
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	for _, d := range []string{"sub/dir", "tools"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(top, "away")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		recorded string
		opts     engine.StepOptions
		// want is the StepNode's cwd; errHas the error's telling part.
		want, errHas string
	}{
		{name: "top", recorded: ".", want: "."},
		{name: "empty is the top", recorded: "", want: "."},
		{name: "relative", recorded: "sub/dir", want: "sub/dir"},
		{name: "absolute inside this clone (older threads)", recorded: filepath.Join(top, "sub"), want: "sub"},
		{name: "absolute of another clone", recorded: "/no/such/clone/sub", errHas: "pass --cwd DIR"},
		{name: "absolute of another clone, --cwd given", recorded: "/no/such/clone/sub", opts: engine.StepOptions{Cwd: filepath.Join(top, "tools")}, want: "tools"},
		{name: "outside", recorded: outside, errHas: "outside the work tree"},
		{name: "outside with consent", recorded: outside, opts: engine.StepOptions{OutsideWorktree: true}, want: outside},
		{name: "dot-dot", recorded: "../..", errHas: "outside the work tree"},
		{name: "link out", recorded: "away", errHas: "outside the work tree"},
		{name: "missing here", recorded: "not/here", errHas: "does not exist"},
		{name: "--cwd outside", recorded: ".", opts: engine.StepOptions{Cwd: outside}, errHas: "--" + workdir.OutsideFlag},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := threadIn(t, fx, c.recorded)
			before := headOf(t, fx, id).Head.Commit
			opts := c.opts
			opts.Agent = agent("script", loopScript)
			_, err := fx.eng.Step(ctx, id, opts)
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) || !strings.Contains(err.Error(), "no agent was started") {
					t.Fatalf("step: %v; want an error with %q", err, c.errHas)
				}
				var fe *engine.StepFailedError
				if errors.As(err, &fe) {
					t.Errorf("a refused directory reads as a failed agent: %v", err)
				}
				if after := headOf(t, fx, id).Head.Commit; after != before {
					t.Errorf("head moved from %s to %s", before, after)
				}
				if refs := chaintest.Git(t, fx.dir, "for-each-ref", "refs/uwf/attempts/"+string(id)); strings.TrimSpace(refs) != "" {
					t.Errorf("an attempt was recorded though no agent ran: %s", refs)
				}
				return
			}
			if err != nil {
				t.Fatalf("step: %v", err)
			}
			if got := headOf(t, fx, id).Head.Step.Cwd; got != c.want {
				t.Errorf("the agent ran in %q, want %q", got, c.want)
			}
		})
	}
	chaintest.Fsck(t, fx.dir)
}

// TestLocationConfined: an edge location rendered from the agent's output
// cannot move the next step out of the work tree.
func TestLocationConfined(t *testing.T) {
	const locYAML = `name: located
roles:
  planner:
    frontmatter:
      type: object
      properties: {$status: {const: planned}, where: {type: string}}
      required: [$status, where]
  worker:
    frontmatter:
      type: object
      properties: {$status: {const: done}}
      required: [$status]
graph:
  $START:
    _: {role: planner, prompt: "Plan."}
  planner:
    planned: {role: worker, prompt: "Work in {{where}}.", location: "{{where}}"}
  worker:
    done: {role: $END, prompt: "Done."}
`
	ctx := context.Background()
	fx := newFixture(t)
	if err := os.MkdirAll(filepath.Join(fx.dir, "pkg", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	info, _, err := fx.repo.RegisterWorkflow(ctx, chaintest.Workflow(t, "located", locYAML))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		where, want, errHas string
	}{
		{where: "a", want: "pkg/a"},
		{where: "..", want: "."},
		{where: "../../x", errHas: "outside the work tree"},
		{where: "../../..", errHas: "outside the work tree"},
		{where: "/", errHas: "outside the work tree"},
		{where: os.TempDir(), errHas: "outside the work tree"},
	}
	for _, c := range cases {
		t.Run(c.where, func(t *testing.T) {
			th, err := fx.repo.StartThread(ctx, info, "go", "pkg")
			if err != nil {
				t.Fatal(err)
			}
			script := []scripted{
				{"planner", "---\n$status: planned\nwhere: " + c.where + "\n---\nplan"},
				{"worker", "---\n$status: done\n---\ndone"},
			}
			if _, err := fx.eng.Step(ctx, th.ID, engine.StepOptions{Agent: agent("script", script)}); err != nil {
				t.Fatalf("planner: %v", err)
			}
			before := headOf(t, fx, th.ID).Head.Commit
			_, err = fx.eng.Step(ctx, th.ID, engine.StepOptions{Agent: agent("script", script)})
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) || !strings.Contains(err.Error(), "edge's location") {
					t.Fatalf("worker: %v; want an error with %q naming the edge's location", err, c.errHas)
				}
				if after := headOf(t, fx, th.ID).Head.Commit; after != before {
					t.Errorf("head moved")
				}
				return
			}
			if err != nil {
				t.Fatalf("worker: %v", err)
			}
			if got := headOf(t, fx, th.ID).Head.Step.Cwd; got != c.want {
				t.Errorf("the worker ran in %q, want %q", got, c.want)
			}
		})
	}
}

// TestRelativeCommandFromInvocation: a relative agent command runs the
// program of the directory the user ran the step in, not one in the
// step's directory (which thread data chooses).
func TestRelativeCommandFromInvocation(t *testing.T) {
	fx := newFixture(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	invocation := t.TempDir()
	stepDir := filepath.Join(fx.dir, "work")
	for dir, body := range map[string]string{
		invocation: "#!/bin/sh\nexec '" + self + "' -test.run='^$' \"$@\"\n",
		stepDir:    "#!/bin/sh\necho the thread chose this program >&2\nexit 7\n",
	} {
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bin", "agent.sh"), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	id := threadIn(t, fx, "work")
	spec := agent("script", loopScript)
	spec.Argv = []string{"./bin/agent.sh"}
	fx.eng.Invocation = invocation
	if _, err := fx.eng.Step(context.Background(), id, engine.StepOptions{Agent: spec}); err != nil {
		t.Fatalf("step: %v", err)
	}
	if got := headOf(t, fx, id).Head.Step.Cwd; got != "work" {
		t.Errorf("the agent ran in %q, want work", got)
	}
}

// TestResumeWhereSuspended: a resumed role runs in the directory its
// suspended step recorded, relative to the local top.
func TestResumeWhereSuspended(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	if err := os.MkdirAll(filepath.Join(fx.dir, "svc"), 0o755); err != nil {
		t.Fatal(err)
	}
	id := threadIn(t, fx, "svc")
	script := []scripted{
		{"developer", "---\n$status: review_needed\nsummary: s\nbranch: b\n---\nwork"},
		{"reviewer", "---\n$status: needs_input\nquestion: which?\n---\n?"},
		{"reviewer", "---\n$status: approved\n---\nok"},
	}
	for i := 0; i < 2; i++ {
		if _, err := fx.eng.Step(ctx, id, engine.StepOptions{Agent: agent("script", script)}); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	if got := headOf(t, fx, id).Head.Step.Cwd; got != "svc" {
		t.Fatalf("suspended step recorded %q", got)
	}
	res, err := fx.eng.Step(ctx, id, engine.StepOptions{Agent: agent("script", script), Resume: true, ResumePrompt: "v2"})
	if err != nil || res.Status != chain.StatusCompleted {
		t.Fatalf("resume: %+v %v", res, err)
	}
	if got := headOf(t, fx, id).Head.Step.Cwd; got != "svc" {
		t.Errorf("resumed in %q, want svc", got)
	}
}
