package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/engine"
)

// childYAML is a one-role workflow that plays parentYAML's role fix.
const childYAML = `name: kid
roles:
  worker:
    frontmatter:
      type: object
      properties:
        $status: {const: done}
        fixed: {type: string}
      required: [$status]
graph:
  $START:
    _: {role: worker, prompt: "Do the task."}
  worker:
    done: {role: $END, prompt: "Done."}
`

const parentYAML = `name: parent
roles:
  fix:
    workflow: kid
    frontmatter:
      type: object
      properties:
        $status: {const: done}
        fixed: {type: string}
      required: [$status]
graph:
  $START:
    _: {role: fix, prompt: "Fix the build."}
  fix:
    done: {role: $END, prompt: "Finished."}
`

var childScript = []scripted{{"worker", "---\n$status: done\nfixed: everything\n---\nEDGE"}}

// newParent registers the kid and parent workflows in fx's repository and
// starts a parent thread recording cwd.
func newParent(t *testing.T, fx *fixture, cwd string) chain.ThreadID {
	t.Helper()
	ctx := context.Background()
	var info *chain.WorkflowInfo
	for _, w := range []struct{ name, yaml string }{{"kid", childYAML}, {"parent", parentYAML}} {
		i, _, err := fx.repo.RegisterWorkflow(ctx, chaintest.Workflow(t, w.name, w.yaml))
		if err != nil {
			t.Fatal(err)
		}
		info = i
	}
	th, err := fx.repo.StartThread(ctx, info, "the build", cwd)
	if err != nil {
		t.Fatal(err)
	}
	return th.ID
}

// childOf returns the child thread named by the parent's head step.
func childOf(t *testing.T, fx *fixture, parent chain.ThreadID) *chain.Thread {
	t.Helper()
	ctx := context.Background()
	th := headOf(t, fx, parent)
	kids, err := fx.repo.Children(ctx, th)
	if err != nil || len(kids) != 1 {
		t.Fatalf("children of %s: %v, %v", parent, kids, err)
	}
	return headOf(t, fx, kids[0])
}

// TestChildOutsideWorktree: a parent stepped with the consent to run
// outside the work tree passes it on to its child, which recorded that
// directory absolute; without the consent the step fails before any agent.
func TestChildOutsideWorktree(t *testing.T) {
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, consent := range []bool{true, false} {
		fx := newFixture(t)
		id := newParent(t, fx, outside)
		_, err := fx.eng.Step(context.Background(), id, engine.StepOptions{Agent: agent("script", childScript), OutsideWorktree: consent})
		if !consent {
			if err == nil {
				t.Errorf("a parent outside the work tree stepped without consent")
			}
			continue
		}
		if err != nil {
			t.Fatalf("step with --outside-worktree: %v", err)
		}
		child := childOf(t, fx, id)
		if child.Start.Cwd != outside || child.Head.Step == nil || child.Head.Step.Cwd != outside {
			t.Errorf("child recorded %q and stepped in %+v, want %q", child.Start.Cwd, child.Head.Step, outside)
		}
	}
}

// TestCancelParentStopsChild: thread cancel raises only the parent's kill
// flag; the child's agent, watching its ancestors' flags too, is stopped,
// and both the child and the parent end in a cancel commit, whether the
// flag goes up while the child's agent runs or before the child steps.
func TestCancelParentStopsChild(t *testing.T) {
	for _, during := range []bool{true, false} {
		ctx := context.Background()
		fx := newFixture(t)
		kill := engine.NewKillFlags(fx.repo)
		fx.eng.Kill = kill
		id := newParent(t, fx, ".")
		if during {
			go func() {
				time.Sleep(500 * time.Millisecond)
				_ = kill.Raise(id, "stop it")
			}()
		} else {
			// The child exists (a retry), the flag is up before it steps.
			parent := headOf(t, fx, id)
			info, err := fx.repo.FindWorkflow(ctx, "kid")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fx.repo.StartChild(ctx, parent, "fix", info, "Fix the build.", "."); err != nil {
				t.Fatal(err)
			}
			if err := kill.Raise(id, "stop it"); err != nil {
				t.Fatal(err)
			}
		}
		kid := chain.ChildID(id, headOf(t, fx, id).Head, "fix")
		began := time.Now()
		_, err := fx.eng.Step(ctx, id, engine.StepOptions{Agent: agent("hang", nil)})
		var ce *engine.CancelledError
		if !errors.As(err, &ce) || ce.Thread != id || ce.Reason != "stop it" {
			t.Fatalf("during=%v: Step = %v, want the parent's CancelledError", during, err)
		}
		if took := time.Since(began); took > 15*time.Second {
			t.Errorf("during=%v: the child's agent was not stopped: the step took %s", during, took)
		}
		if th := headOf(t, fx, id); th.Head.Kind != chain.KindCancel || th.Head.Commit != ce.Commit {
			t.Errorf("during=%v: parent head is a %s commit, want the cancel commit %s", during, th.Head.Kind, ce.Commit)
		}
		if th := headOf(t, fx, kid); th.Head.Kind != chain.KindCancel {
			t.Errorf("during=%v: child head is a %s commit, want a cancel commit", during, th.Head.Kind)
		}
		if _, up := kill.Raised(id); up {
			t.Errorf("during=%v: the parent's kill flag is still raised", during)
		}
	}
}

// TestChildAttemptRedacted: a child whose last output does not fit the
// parent's role fails the parent step with an attempt, and the secret the
// error quotes (here a key the role does not allow) is redacted in it.
func TestChildAttemptRedacted(t *testing.T) {
	ctx := context.Background()
	const gh = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	fx := newFixture(t)
	strict := strings.Replace(parentYAML, "      required: [$status]\ngraph:", "      required: [$status]\n      additionalProperties: false\ngraph:", 1)
	strict = strings.Replace(strict, "name: parent", "name: strict", 1)
	newParent(t, fx, ".") // registers kid
	info, _, err := fx.repo.RegisterWorkflow(ctx, chaintest.Workflow(t, "strict", strict))
	if err != nil {
		t.Fatal(err)
	}
	th, err := fx.repo.StartThread(ctx, info, "the build", ".")
	if err != nil {
		t.Fatal(err)
	}
	// The child's step is written by hand (no agent's redaction): its
	// output has a key that looks like a token.
	kid, err := fx.repo.FindWorkflow(ctx, "kid")
	if err != nil {
		t.Fatal(err)
	}
	child, err := fx.repo.StartChild(ctx, th, "fix", kid, "Fix the build.", ".")
	if err != nil {
		t.Fatal(err)
	}
	chaintest.Step(t, fx.repo, child.ID, "worker", map[string]any{"$status": "done", gh: "x"}, "done")
	_, err = fx.eng.Step(ctx, th.ID, engine.StepOptions{Agent: agent("script", childScript)})
	var fe *engine.StepFailedError
	if !errors.As(err, &fe) || fe.Attempt.IsZero() {
		t.Fatalf("Step = %v, want a failed step with an attempt", err)
	}
	if !strings.Contains(err.Error(), gh) {
		t.Fatalf("the schema error does not quote the key, so this test shows nothing: %v", err)
	}
	attempts, err := fx.repo.Attempts(ctx, headOf(t, fx, th.ID), true)
	if err != nil || len(attempts) != 1 {
		t.Fatalf("attempts: %v, %v", attempts, err)
	}
	if msg := attempts[0].Node.Error; strings.Contains(msg, gh) || !strings.Contains(msg, "[REDACTED") {
		t.Errorf("the attempt's error is not redacted: %s", msg)
	}
}

// TestCodeTrailersOnReusedAndChildSteps: a step played by a child thread
// and a step reused from a failed attempt record the code commit (Uwf-Code)
// like a step whose agent ran.
func TestCodeTrailersOnReusedAndChildSteps(t *testing.T) {
	for _, kind := range []string{"child", "reused"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			fx := newFixture(t)
			chaintest.Git(t, fx.dir, "commit", "-q", "--allow-empty", "-m", "code")
			code := strings.TrimSpace(chaintest.Git(t, fx.dir, "rev-parse", "HEAD"))
			id := fx.id
			if kind == "child" {
				id = newParent(t, fx, ".")
				if _, err := fx.eng.Step(ctx, id, engine.StepOptions{Agent: agent("script", childScript)}); err != nil {
					t.Fatal(err)
				}
			} else {
				lock := filepath.Join(fx.repo.Info.CommonDir, "refs", "uwf", "threads", string(id)+".lock")
				if err := os.WriteFile(lock, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				future := time.Now().Add(time.Hour)
				if err := os.Chtimes(lock, future, future); err != nil {
					t.Fatal(err)
				}
				if _, err := fx.eng.Step(ctx, id, engine.StepOptions{Agent: agent("script", loopScript)}); err == nil {
					t.Fatal("the step appended with the ref locked")
				}
				if err := os.Remove(lock); err != nil {
					t.Fatal(err)
				}
				res, err := fx.eng.Step(ctx, id, engine.StepOptions{Agent: agent("exit3", nil)})
				if err != nil || res.ReusedAttempt == "" {
					t.Fatalf("retry = %v, %v; want the kept step reused", res, err)
				}
			}
			before, _, err := fx.repo.StepCode(headOf(t, fx, id).Head.Commit)
			if err != nil {
				t.Fatal(err)
			}
			if before != code {
				t.Errorf("the %s step records Uwf-Code %q, want %s", kind, before, code)
			}
		})
	}
}
