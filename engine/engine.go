package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/text"
	"github.com/git-uwf/git-uwf/internal/workdir"
	"github.com/git-uwf/git-uwf/moderator"
)

// DefaultTimeout bounds an agent run when nothing else is configured.
const DefaultTimeout = 30 * time.Minute

// Engine runs steps on one repository.
type Engine struct {
	Repo *chain.Repo
	// Agent resolves the agent for a workflow's role when no override is
	// given.
	Agent func(workflow, role string) (config.AgentSpec, error)
	// Progress shows a running step; it returns the function that ends it.
	Progress func(label string) (stop func(result string))
	// AgentStderr, when set, receives the agent's stderr live (on a
	// terminal unless -q, or -v). It always goes to the thread's step log
	// too ($GIT_COMMON_DIR/uwf/logs/<thread>.log).
	AgentStderr io.Writer
	// Env is added to every agent's environment.
	Env []string
	// MaxOutput caps the agent's stdout and stderr (0: agentkit.DefaultMaxOutput).
	MaxOutput int64
	// Self is this program's executable; command lines starting with
	// "git-uwf" or "git uwf" run it directly.
	Self string
	// Redactor scrubs secrets from the evidence of failed attempts before
	// it is stored (nil: the default patterns). NoRedact turns that off.
	Redactor *agentkit.Redactor
	NoRedact bool
	// SpawnBuiltins spawns this program's built-in agents as processes of
	// their own, like any other agent command, instead of calling them
	// inside this process (see EnvSpawnAgents).
	SpawnBuiltins bool
	// Invocation is the directory the user runs the command in (""
	// means this process's working directory). Relative agent commands
	// resolve against it, never against the step's directory, which
	// comes from thread data; in a bare repository it stands for the work
	// tree. Agents get it as agentkit.EnvInvocationDir.
	Invocation string
	// Supervisor, when set, is the program that supervises spawned agents
	// (agentkit.Invocation.Supervisor; normally this git-uwf binary): the
	// agent's process group dies with this process, even by SIGKILL, and
	// the thread stays locked until the group is gone.
	Supervisor string
	// Kill, when set, are the kill flags `thread cancel` raises for a
	// running step (see KillFlags).
	Kill *KillFlags
	// Limit, when set, takes a slot of a workflow's concurrency limit and
	// returns the function that frees it. Step's caller takes the slot of
	// the thread it steps; the engine takes the child workflow's slot
	// around each step of a child thread (see runChild).
	Limit func(ctx context.Context, workflow string) (release func(), err error)
}

// StepOptions change one step.
type StepOptions struct {
	// Agent overrides the configured agent.
	Agent *config.AgentSpec
	// Resume re-runs the suspended role of a suspended thread, with
	// ResumePrompt appended to the suspend message; on a completed thread
	// whose workflow has a $START resume edge, it takes that edge.
	Resume       bool
	ResumePrompt string
	// Cwd, when set, is the thread's directory for this step (absolute or
	// relative to the invocation directory) in place of the recorded one.
	Cwd string
	// OutsideWorktree allows, for this step, a thread directory outside
	// the local work tree (the user's own consent; never from thread data).
	OutsideWorktree bool
	// Rerun runs the agent even when a failed attempt on the head holds a
	// valid step that could not be appended (see reuse.go).
	Rerun bool
}

// Result reports the thread after a step.
type Result struct {
	Thread         chain.ThreadID `json:"thread"`
	Workflow       string         `json:"workflow"`
	Role           string         `json:"role"`
	Agent          string         `json:"agent"`
	Step           string         `json:"step"`
	Commit         string         `json:"commit"`
	Output         map[string]any `json:"output"`
	DurationMs     int64          `json:"durationMs"`
	Status         chain.Status   `json:"status"`
	CurrentRole    *string        `json:"currentRole"`
	SuspendedRole  *string        `json:"suspendedRole"`
	SuspendMessage *string        `json:"suspendMessage"`
	// The protocol's StepOutput fields: the pinned workflow version, the
	// new head (the step's alias) and done (the thread completed).
	WorkflowHash string `json:"workflowHash"`
	Head         string `json:"head"`
	Done         bool   `json:"done"`
	// ReusedAttempt is the failed attempt whose step was appended instead
	// of running the agent again (omitted when the agent ran).
	ReusedAttempt string `json:"reusedAttempt,omitempty"`
}

// Errors callers branch on.
var (
	// ErrFinished: the thread is completed or cancelled.
	ErrFinished = errors.New("thread finished")
	// ErrSuspended: the thread waits for `thread resume`.
	ErrSuspended = errors.New("thread suspended")
	// ErrNotSuspended: resume on a thread that is not suspended.
	ErrNotSuspended = errors.New("thread not suspended")
)

// StepFailedError is a step whose agent did not produce a usable step.
// The head did not move; what the agent produced is kept in Attempt.
type StepFailedError struct {
	Thread  chain.ThreadID
	Role    string
	Agent   string
	Phase   string
	Err     error
	Attempt gitobj.Hash
}

func (e *StepFailedError) Error() string {
	msg := fmt.Sprintf("step failed: role %q (agent %s): %v; the thread head did not move", e.Role, e.Agent, e.Err)
	if !e.Attempt.IsZero() {
		msg += fmt.Sprintf("; the attempt is kept as commit %s", e.Attempt.String()[:12])
	}
	return msg
}

func (e *StepFailedError) Unwrap() error { return e.Err }

// plan is what the next step will do.
type plan struct {
	role, prompt, location string
	// dir, when set, replaces the thread's recorded directory (a resumed
	// role runs where it was suspended).
	dir     string
	resumed bool
}

// Step runs one moderator → agent → verify → append cycle.
func (e *Engine) Step(ctx context.Context, id chain.ThreadID, opts StepOptions) (*Result, error) {
	// The commit at the end needs the committer identity, which costs a git
	// process: resolve it from the start, beside everything else.
	e.Repo.WarmIdentity(ctx)
	unlock, err := e.Repo.LockThread(id)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, err := e.Repo.Thread(ctx, id)
	if err != nil {
		return nil, err
	}
	p, err := e.plan(ctx, t, opts)
	if err != nil {
		return nil, err
	}
	if name := childWorkflow(t, p.role); name != "" {
		return e.runChild(ctx, t, p, name, opts)
	}
	if !opts.Rerun && !p.resumed {
		if res, err := e.reuse(ctx, t, p, opts); res != nil || err != nil {
			return res, err
		}
	}
	spec := opts.Agent
	if spec == nil {
		if e.Agent == nil {
			return nil, errors.New("no agent configured: pass --agent or set one with git uwf setup")
		}
		s, err := e.Agent(t.Workflow.Name, p.role)
		if err != nil {
			return nil, err
		}
		spec = &s
	}
	cwd, err := e.stepDir(t, p, opts)
	if err != nil {
		return nil, err
	}
	if err := e.checkKill(ctx, t); err != nil {
		return nil, err
	}
	return e.run(ctx, t, p, *spec, cwd)
}

func (e *Engine) plan(ctx context.Context, t *chain.Thread, opts StepOptions) (plan, error) {
	st, err := e.Repo.State(ctx, t)
	if err != nil {
		return plan{}, err
	}
	switch st.Status {
	case chain.StatusCancelled:
		return plan{}, fmt.Errorf("thread %s is cancelled: %w", t.ID, ErrFinished)
	case chain.StatusCompleted:
		if opts.Resume {
			return e.planResumeEnded(ctx, t, opts.ResumePrompt)
		}
		if t.Workflow.Workflow.CanResumeEnded() {
			return plan{}, fmt.Errorf("thread %s is completed: %w; continue it with: git uwf thread resume %s", t.ID, ErrFinished, t.ID)
		}
		return plan{}, fmt.Errorf("thread %s is completed: %w", t.ID, ErrFinished)
	case chain.StatusSuspended:
		if st.SuspendedChild != "" {
			// The role is played by a suspended child thread: stepping
			// reports its question, resuming resumes it (runChild).
			return plan{role: st.Next.Role, prompt: st.Next.Prompt, location: st.Next.Location}, nil
		}
		if !opts.Resume {
			return plan{}, fmt.Errorf("thread %s is suspended at role %q (%s): %w; continue it with: git uwf thread resume %s -p <answer>",
				t.ID, st.SuspendedRole, text.Clip(text.OneLine(st.SuspendMessage), 160), ErrSuspended, t.ID)
		}
		prompt := st.SuspendMessage
		if s := strings.TrimSpace(opts.ResumePrompt); s != "" {
			prompt += "\n\n" + s
		}
		dir := ""
		if t.Head.Step != nil {
			dir = t.Head.Step.Cwd
		}
		return plan{role: st.SuspendedRole, prompt: prompt, dir: dir, resumed: true}, nil
	}
	if opts.Resume {
		return plan{}, fmt.Errorf("thread %s is %s, not suspended: %w", t.ID, st.Status, ErrNotSuspended)
	}
	if st.Next.Kind != moderator.Next || st.Next.Role == "" {
		return plan{}, fmt.Errorf("thread %s cannot step: %s", t.ID, st.Error)
	}
	return plan{role: st.Next.Role, prompt: st.Next.Prompt, location: st.Next.Location}, nil
}

// planResumeEnded continues a completed thread through its workflow's
// $START resume edge: the next step is appended to the same chain.
func (e *Engine) planResumeEnded(ctx context.Context, t *chain.Thread, answer string) (plan, error) {
	w := t.Workflow.Workflow
	if !w.CanResumeEnded() {
		return plan{}, fmt.Errorf("thread %s is completed and workflow %s has no %s.%s edge to resume it: %w",
			t.ID, w.Name, moderator.Start, moderator.StartResume, ErrFinished)
	}
	rc, err := e.Repo.RouteContext(ctx, t)
	if err != nil {
		return plan{}, err
	}
	d, err := w.RouteResume(rc)
	if err != nil {
		return plan{}, fmt.Errorf("thread %s: %w", t.ID, err)
	}
	if d.Kind != moderator.Next {
		return plan{}, fmt.Errorf("thread %s: the %s.%s edge leads to %s, not to a role: %w", t.ID, moderator.Start, moderator.StartResume, d.Role, ErrFinished)
	}
	prompt := d.Prompt
	if a := strings.TrimSpace(answer); a != "" {
		prompt += "\n\n" + a
	}
	return plan{role: d.Role, prompt: prompt, location: d.Location, resumed: true}, nil
}

// stepDir resolves the step's working directory (see package workdir):
// the thread's recorded directory or the one given for this step, moved by
// the edge's location, and confined to the local work tree. It fails
// before any agent starts.
func (e *Engine) stepDir(t *chain.Thread, p plan, opts StepOptions) (string, error) {
	inv, err := e.invocation()
	if err != nil {
		return "", err
	}
	rec := t.Start.Cwd
	if p.dir != "" {
		rec = p.dir
	}
	dir, err := workdir.Step{Top: e.Repo.Info.WorkTree, Invocation: inv, Recorded: rec, Override: opts.Cwd,
		Location: p.location, AllowOutside: opts.OutsideWorktree}.Resolve()
	if err != nil {
		return "", fmt.Errorf("thread %s, role %q: %w; no agent was started", t.ID, p.role, err)
	}
	return dir, nil
}

// invocation returns the directory relative agent commands resolve against.
func (e *Engine) invocation() (string, error) {
	if e.Invocation != "" {
		return e.Invocation, nil
	}
	return os.Getwd()
}

func (e *Engine) run(ctx context.Context, t *chain.Thread, p plan, spec config.AgentSpec, cwd string) (*Result, error) {
	argv := e.resolveArgv(spec.Argv)
	if len(argv) == 0 {
		return nil, fmt.Errorf("agent %s has an empty command line", spec.Name)
	}
	invDir, err := e.invocation()
	if err != nil {
		return nil, err
	}
	agent := e.agentFor(spec, argv, invDir, t.ID, p.role)
	edgeEnv, removeEdge, err := edgePromptEnv(e.Repo.UwfDir(), t.ID, p.prompt)
	if err != nil {
		return nil, err
	}
	defer removeEdge()
	env := append(os.Environ(), e.Env...)
	env = append(env, spec.Env...)
	env = append(env, edgeEnv...)
	env = append(env,
		agentkit.EnvThread+"="+string(t.ID),
		agentkit.EnvRole+"="+p.role,
		agentkit.EnvHead+"="+t.Head.Commit.String(),
		"UWF_STEP_TRAILER="+chain.StepTrailer+": "+chain.StepTrailerValue(t.ID, t.Head.Commit),
		"GIT_DIR="+e.Repo.Info.GitDir,
		agentkit.EnvInvocationDir+"="+invDir,
	)
	if top := e.Repo.Info.WorkTree; top != "" {
		// With GIT_DIR alone, git takes the working directory for the top
		// of the work tree: in a subdirectory the agent's git would see
		// the wrong tree.
		env = append(env, "GIT_WORK_TREE="+top)
	}
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	stop := func(string) {}
	if e.Progress != nil {
		stop = e.Progress(fmt.Sprintf("%s · %s", p.role, spec.Name))
	}
	stderr, closeLog := e.stepLog(t, p.role, spec.Name)
	defer closeLog()
	started := time.Now()
	call := &Call{Thread: t.ID, Role: p.role, Env: env, Dir: cwd, Repo: e.Repo,
		Limits: agentkit.Invocation{Timeout: timeout, MaxOutput: e.MaxOutput, Stderr: stderr, Supervisor: e.Supervisor}}
	if lock := e.Repo.ThreadLockFile(t.ID); lock != nil {
		call.Limits.Hold = []*os.File{lock}
	}
	codeBefore := codeHead(ctx, cwd, e.Repo.RefFiles())
	agentCtx, stopWatch := e.watchKill(ctx, t.ID)
	warmed := e.warmForAnswer(agent, t, p.role)
	answer, runErr := agent.Run(agentCtx, call)
	stopWatch()
	<-warmed
	completed := time.Now()
	if err := e.checkKill(ctx, t); err != nil {
		stop("cancelled")
		return nil, err
	}
	trailers := chain.StepCodeTrailers(codeBefore, codeHead(ctx, cwd, e.Repo.RefFiles()))
	entry, rej := e.appendAnswer(ctx, t, answer, runErr, chain.AppendOptions{ExpectedRole: p.role, Trailers: trailers})
	if rej != nil {
		stop("failed")
		return nil, e.recordRejection(ctx, t, rej, chain.Attempt{Role: p.role, Agent: spec.Name,
			StartedAtMs: started.UnixMilli(), CompletedAtMs: completed.UnixMilli()}, answer)
	}
	stop("done")
	return e.result(ctx, t, entry, spec.Name)
}

// warmForAnswer prepares, while a spawned agent runs, what appendAnswer
// will need first: the StepNode schema and the role's output schema,
// compiled. A built-in agent called in this process compiles them in its
// own step; for a spawned one the engine would otherwise do it after the
// agent's exit, on the step's critical path. The returned channel is closed
// when done; errors are left for the verification to report.
func (e *Engine) warmForAnswer(agent Agent, t *chain.Thread, role string) <-chan struct{} {
	done := make(chan struct{})
	if _, spawned := agent.(*commandAgent); !spawned {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		_, _ = e.Repo.Schema("uwf.StepNode")
		if a, ok := t.Workflow.RoleSchemas[role]; ok {
			_, _ = e.Repo.Store.Schema(a)
		}
	}()
	return done
}

// result describes the thread after a successful step.
// The thread before the step is t: its start and pinned workflow are the
// same, only the head is the new entry, so nothing is read again.
func (e *Engine) result(ctx context.Context, before *chain.Thread, entry *chain.Entry, agent string) (*Result, error) {
	t := *before
	t.Head = entry
	id := t.ID
	st, err := e.Repo.State(ctx, &t)
	if err != nil {
		return nil, err
	}
	out, err := e.Repo.Output(entry)
	if err != nil {
		return nil, err
	}
	if entry.Step.Agent != "" {
		agent = entry.Step.Agent
	}
	r := &Result{Thread: id, Workflow: t.Workflow.Name, Role: entry.Step.Role, Agent: agent,
		Step: string(entry.Node.Alias), Commit: entry.Commit.String(), Output: out,
		DurationMs: entry.Step.CompletedAtMs - entry.Step.StartedAtMs, Status: st.Status,
		WorkflowHash: string(t.Workflow.Alias), Head: string(entry.Node.Alias), Done: st.Status == chain.StatusCompleted}
	if st.CurrentRole != "" {
		r.CurrentRole = &st.CurrentRole
	}
	if st.Status == chain.StatusSuspended {
		r.SuspendedRole, r.SuspendMessage = &st.SuspendedRole, &st.SuspendMessage
	}
	return r, nil
}

// resolveArgv runs built-in agents ("git-uwf agent …" or "git uwf agent
// …") with this very executable, so they work without PATH setup.
func (e *Engine) resolveArgv(argv []string) []string {
	if args, ok := BuiltinArgs(argv); ok && e.Self != "" {
		return append([]string{e.Self}, args...)
	}
	return slices.Clone(argv)
}

// redactor returns the redactor for stored evidence, nil when disabled.
func (e *Engine) redactor() *agentkit.Redactor {
	if e.NoRedact {
		return nil
	}
	if e.Redactor != nil {
		return e.Redactor
	}
	red, err := agentkit.NewRedactor(nil)
	if err != nil {
		return nil
	}
	return red
}
