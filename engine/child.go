package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/internal/workdir"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/text"
)

// childChainKey carries, in the context of a child's steps, the
// childChain running around it.
type childChainKey struct{}

// childChain is what runs around a child thread's steps, outermost first:
// the workflows (a workflow never runs inside itself) and the threads
// (cancelling any of them stops the child's agent, see kill.go).
type childChain struct {
	workflows []string
	threads   []chain.ThreadID
}

// ancestors returns the ids of the threads running around ctx's step.
func ancestors(ctx context.Context) []chain.ThreadID {
	cc, _ := ctx.Value(childChainKey{}).(childChain)
	return cc.threads
}

// MaxChildSteps bounds the steps of one child thread (a role played by a
// workflow), against child workflows that loop forever.
const MaxChildSteps = 100

// childWorkflow returns the workflow that plays role in t's workflow, ""
// when an agent plays it.
func childWorkflow(t *chain.Thread, role string) string {
	if r := t.Workflow.Workflow.Roles[role]; r != nil {
		return r.Workflow
	}
	return ""
}

// runChild plays a role with a workflow: it starts (or finds, on a retry)
// the child thread of that workflow whose task is the edge prompt, steps it
// with this engine until it completes, and appends one step to t whose
// output is the child's last output, validated against the role's schema.
// A child that suspends stops the parent step with the child's question
// (thread resume on the parent resumes the child); a cancelled child fails
// the parent step.
func (e *Engine) runChild(ctx context.Context, t *chain.Thread, p plan, name string, opts StepOptions) (*Result, error) {
	wf, err := e.Repo.FindWorkflow(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("role %q of thread %s is played by workflow %q: %w", p.role, t.ID, name, err)
	}
	// Registration refuses cycles, but a workflow registered later may
	// close one: never run a workflow inside itself.
	cc, _ := ctx.Value(childChainKey{}).(childChain)
	outer := cc.workflows
	if slices.Contains(outer, wf.Name) || wf.Name == t.Workflow.Name {
		return nil, fmt.Errorf("role %q of thread %s is played by workflow %q, which is already running around it (%s → %s): a workflow cannot play a role of itself",
			p.role, t.ID, wf.Name, strings.Join(append(slices.Clone(outer), t.Workflow.Name), " → "), wf.Name)
	}
	ctx = context.WithValue(ctx, childChainKey{}, childChain{workflows: append(slices.Clone(outer), t.Workflow.Name),
		threads: append(slices.Clone(cc.threads), t.ID)})
	dir, err := e.stepDir(t, p, opts)
	if err != nil {
		return nil, err
	}
	// The child records its directory as any thread does: relative to the
	// work tree's top (absolute only when this step was allowed outside).
	cwd, err := workdir.Record(e.Repo.Info.WorkTree, dir, opts.OutsideWorktree)
	if err != nil {
		return nil, fmt.Errorf("child of thread %s: %w", t.ID, err)
	}
	started := time.Now()
	codeBefore := codeHead(ctx, dir, e.Repo.RefFiles())
	child, err := e.Repo.StartChild(ctx, t, p.role, wf, p.prompt, cwd)
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("child thread %s (workflow %s, for role %q of %s)", child.ID, wf.Name, p.role, t.ID)
	resume := opts.Resume
	for i := 0; ; i++ {
		ct, err := e.Repo.Thread(ctx, child.ID)
		if err != nil {
			return nil, err
		}
		st, err := e.Repo.State(ctx, ct)
		if err != nil {
			return nil, err
		}
		switch st.Status {
		case chain.StatusCompleted:
			// Cancelled while the child finished: append nothing.
			if err := e.checkKill(ctx, t); err != nil {
				return nil, err
			}
			return e.appendChild(ctx, t, p, ct, started, cwd,
				chain.StepCodeTrailers(codeBefore, codeHead(ctx, dir, e.Repo.RefFiles())))
		case chain.StatusCancelled:
			if err := e.checkKill(ctx, t); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s was cancelled: role %q cannot complete (cancel %s too, or fork it from before that step)", label, p.role, t.ID)
		case chain.StatusSuspended:
			if !resume {
				return nil, fmt.Errorf("thread %s waits for its %s, suspended at role %q (%s): %w; answer with: git uwf thread resume %s -p <answer>",
					t.ID, label, st.SuspendedRole, text.Clip(text.OneLine(st.SuspendMessage), 160), ErrSuspended, t.ID)
			}
		}
		if i >= MaxChildSteps {
			return nil, fmt.Errorf("%s ran %d steps without completing", label, MaxChildSteps)
		}
		err = e.stepChild(ctx, child.ID, wf.Name, StepOptions{Agent: opts.Agent, Rerun: opts.Rerun, Resume: resume, ResumePrompt: opts.ResumePrompt,
			// The consent to run outside the work tree carries over (the
			// child recorded this step's directory); Cwd does not: the
			// child steps in its own recorded directory.
			OutsideWorktree: opts.OutsideWorktree})
		if err != nil {
			// The child's step cancels the child when a kill flag around
			// it is up (see checkKill); this thread records its own.
			if kerr := e.checkKill(ctx, t); kerr != nil {
				return nil, kerr
			}
			if errors.Is(err, ErrSuspended) || errors.Is(err, chain.ErrBusy) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		resume = false
	}
}

// stepChild runs one step of the child thread id, of workflow wf, in a
// slot of that workflow's concurrency limit (a child's step is a step of
// its workflow like any other). The parent's slot stays taken meanwhile:
// a workflow never runs inside itself, so slots are always taken down the
// same acyclic order of workflows and two steps never wait for each
// other's.
func (e *Engine) stepChild(ctx context.Context, id chain.ThreadID, wf string, opts StepOptions) error {
	if e.Limit != nil {
		release, err := e.Limit(ctx, wf)
		if err != nil {
			return err
		}
		defer release()
	}
	_, err := e.Step(ctx, id, opts)
	return err
}

// appendChild appends the parent step of a completed child thread.
// The step commit records the code commits around the child's run (code).
func (e *Engine) appendChild(ctx context.Context, t *chain.Thread, p plan, child *chain.Thread, started time.Time, cwd string, code []chain.Trailer) (*Result, error) {
	if child.Head.Step == nil {
		return nil, fmt.Errorf("child thread %s completed without a step", child.ID)
	}
	out, err := e.Repo.Output(child.Head)
	if err != nil {
		return nil, err
	}
	body, _ := e.Repo.Text(child.Head, child.Head.Step.Body)
	entry, err := e.Repo.AppendChildStep(ctx, t, chain.ChildStep{Role: p.role, Child: child, Output: out, Body: body,
		EdgePrompt: p.prompt, Cwd: cwd, StartedAtMs: started.UnixMilli(), CompletedAtMs: time.Now().UnixMilli(), Trailers: code})
	if err != nil {
		phase := "append"
		if errors.Is(err, chain.ErrChildOutput) || errors.Is(err, chain.ErrBadStep) {
			phase = "verify"
		}
		fe := &StepFailedError{Thread: t.ID, Role: p.role, Agent: "workflow " + child.Workflow.Name, Phase: phase, Err: err}
		a := chain.Attempt{Role: p.role, Agent: fe.Agent, Error: err.Error(), Phase: phase,
			StartedAtMs: started.UnixMilli(), CompletedAtMs: time.Now().UnixMilli(), ExitCode: -1}
		// The error quotes the child's output (schema errors name its
		// keys): scrub it as any attempt's evidence.
		if red := e.redactor(); red != nil {
			a.Error, _ = red.Redact(a.Error)
		}
		recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if commit, rerr := e.Repo.RecordAttempt(recordCtx, t, a); rerr == nil {
			fe.Attempt = commit
		}
		return nil, fe
	}
	return e.result(ctx, t, entry, "workflow "+child.Workflow.Name)
}
