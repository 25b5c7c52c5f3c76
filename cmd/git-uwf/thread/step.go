package thread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/engine"
	"github.com/git-uwf/git-uwf/internal/text"
	"github.com/git-uwf/git-uwf/internal/workdir"
)

// DefaultMaxSteps guards --until-done against workflows that loop forever.
const DefaultMaxSteps = 50

// StepOptions are the inputs of `thread step` and `thread resume`.
type StepOptions struct {
	// Factory gives the step engine what it runs with: the streams, the
	// environment, the clock, the repository, the git-uwf executable and
	// the agent supervisor.
	Factory *cmdutil.Factory
	Format  cmdutil.Format

	Thread    string
	Agent     string
	Count     int
	UntilDone bool
	MaxSteps  int
	Timeout   time.Duration
	Verbose   bool
	Quiet     bool
	Resume    bool
	Prompt    string
	// Cwd replaces the thread's directory for this run; OutsideWorktree
	// allows one outside the local work tree.
	Cwd             string
	OutsideWorktree bool
	// Rerun runs the agent even when a failed attempt kept a valid step.
	Rerun bool
	// Leased skips the lease check: the caller (a worker) holds it.
	Leased bool
}

func agentFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "agent", Usage: "agent `COMMAND` line or configured alias (overrides the configuration)"},
		&cli.DurationFlag{Name: "timeout", Usage: "kill the agent after `DURATION`", DefaultText: "configured, else 30m"},
		&cli.StringFlag{Name: "cwd", Usage: "run in `DIR` (inside the work tree) instead of the thread's recorded directory, for this run"},
		&cli.BoolFlag{Name: workdir.OutsideFlag, Usage: "allow the thread's directory (recorded or --cwd) to be outside the work tree, for this run"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "do not show the agent's stderr on a terminal (git uwf thread watch still can)"},
		cmdutil.FormatFlag(),
	}
}

func newCmdStep(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "step",
		Aliases:   []string{"exec"},
		Usage:     "Run the next step(s): moderator → agent → validated commit",
		ArgsUsage: "<thread>",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "count", Aliases: []string{"c"}, Value: 1, Usage: "run up to `N` steps (stops early when the thread completes or suspends)"},
			&cli.BoolFlag{Name: "until-done", Usage: "step until the thread completes or suspends"},
			&cli.IntFlag{Name: "max-steps", Value: DefaultMaxSteps, Usage: "with --until-done, stop after `N` steps"},
			&cli.BoolFlag{Name: "rerun", Usage: "run the agent even if a failed attempt kept a valid step for this head (by default that step is appended)", DisableDefaultText: true},
			&cli.BoolFlag{Name: "all", Usage: "step every runnable (idle) thread, -j at a time, each as its own step process"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "with --all, run `N` steps at once (default: the number of CPUs)"},
			&cli.StringFlag{Name: "workflow", Usage: "with --all, only threads of workflow `NAME`"},
			&cli.BoolFlag{Name: "background", Usage: "run the step(s) in a detached process and return at once (wait with thread join)"},
			&cli.StringFlag{Name: "outcome-file", Hidden: true, Usage: "write the outcome of the step(s) to `FILE` (used by --background)"},
			&cli.BoolFlag{Name: "leased", Hidden: true, Usage: "the caller holds the thread's lease (used by git uwf worker)"},
		}, agentFlags()...),
		Action: func(c *cli.Context) error {
			if c.Bool("all") {
				return stepAllAction(c, f)
			}
			if c.IsSet("jobs") || c.IsSet("workflow") {
				return cmdutil.FlagErrorf("-j and --workflow go with --all")
			}
			if c.Bool("background") {
				return backgroundAction(c, f)
			}
			if out := c.String("outcome-file"); out != "" {
				return writeOutcome(out, stepAction(c, f))
			}
			return stepAction(c, f)
		},
	}
}

// stepAllAction runs `thread step --all`.
func stepAllAction(c *cli.Context, f *cmdutil.Factory) error {
	if c.NArg() > 0 {
		return cmdutil.FlagErrorf("--all steps every runnable thread; it takes no thread argument")
	}
	if c.Bool("background") {
		return cmdutil.FlagErrorf("--all and --background do not go together")
	}
	if c.String("cwd") != "" {
		return cmdutil.FlagErrorf("--cwd does not go with --all: one directory cannot apply to every thread")
	}
	opts := AllOptions{Factory: f, Jobs: c.Int("jobs"), Workflow: c.String("workflow"), UntilDone: c.Bool("until-done"),
		MaxSteps: c.Int("max-steps"), Step: stepOptionsOf(c, nil)}
	if c.IsSet("jobs") && opts.Jobs < 1 {
		return cmdutil.FlagErrorf("-j must be a positive number")
	}
	if opts.MaxSteps < 1 {
		return cmdutil.FlagErrorf("--max-steps must be a positive number")
	}
	if !opts.UntilDone {
		if c.IsSet("count") && c.Int("count") != 1 {
			return cmdutil.FlagErrorf("--all takes one step per thread, or --until-done; --count does not apply")
		}
		opts.MaxSteps = 1
	}
	var err error
	if opts.Format, err = cmdutil.FormatOf(c); err != nil {
		return err
	}
	return stepAllRun(c.Context, &opts)
}

// stepAction runs `thread step <thread>`.
func stepAction(c *cli.Context, f *cmdutil.Factory) error {
	arg, err := cmdutil.OneArg(c, "thread id")
	if err != nil {
		return err
	}
	opts := stepOptionsOf(c, f)
	opts.Thread = arg
	if opts.Count < 1 {
		return cmdutil.FlagErrorf("--count must be a positive number")
	}
	if opts.MaxSteps < 1 {
		return cmdutil.FlagErrorf("--max-steps must be a positive number")
	}
	if opts.UntilDone {
		opts.Count = opts.MaxSteps
	}
	if opts.Format, err = cmdutil.FormatOf(c); err != nil {
		return err
	}
	return stepRun(c.Context, &opts)
}

// stepOptionsOf reads the flags of `thread step` (not its argument, nor
// --format).
func stepOptionsOf(c *cli.Context, f *cmdutil.Factory) StepOptions {
	return StepOptions{Factory: f, Agent: c.String("agent"), Count: c.Int("count"), UntilDone: c.Bool("until-done"),
		MaxSteps: c.Int("max-steps"), Timeout: c.Duration("timeout"), Verbose: verbose(c), Quiet: c.Bool("quiet"),
		Cwd: c.String("cwd"), OutsideWorktree: c.Bool(workdir.OutsideFlag), Rerun: c.Bool("rerun"), Leased: c.Bool("leased")}
}

func verbose(c *cli.Context) bool {
	for _, ctx := range c.Lineage() {
		if ctx.IsSet("verbose") && ctx.Bool("verbose") {
			return true
		}
	}
	return false
}

func stepRun(ctx context.Context, opts *StepOptions) error {
	f, format := opts.Factory, opts.Format
	// A step allocates a few MiB: at the default GOGC the collector runs
	// twice in a short-lived step process, at 400 not at all. The soft
	// limit keeps --count and --until-done loops bounded, as for listings.
	defer cmdutil.RelaxGC(f.Getenv)()
	repo, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	// The step's commit needs the committer identity (a git process):
	// resolve it while the thread and the configuration are read.
	repo.WarmIdentity(ctx)
	// Only the id: the engine reads the thread itself, under its lock.
	id, err := resolveThread(ctx, repo, opts.Thread)
	if err != nil {
		return err
	}
	eng, override, cfg, err := newEngineConfig(ctx, f, repo, *opts)
	if err != nil {
		return err
	}
	if !opts.Leased {
		if err := checkLease(ctx, f, repo, id); err != nil {
			return err
		}
	}
	limit := stepLimit(ctx, f, repo, cfg, id)
	var results []*engine.Result
	var stepErr error
	for i := 0; i < opts.Count; i++ {
		release, err := limit(ctx)
		if err != nil {
			stepErr = err
			break
		}
		res, err := eng.Step(ctx, id, engine.StepOptions{Agent: override, Resume: opts.Resume && i == 0, ResumePrompt: opts.Prompt,
			Cwd: opts.Cwd, OutsideWorktree: opts.OutsideWorktree, Rerun: opts.Rerun})
		release()
		if err != nil {
			stepErr = err
			break
		}
		results = append(results, res)
		if format == cmdutil.FormatText {
			printStepLine(f.IO.ErrOut, res)
		}
		if res.Status != chain.StatusIdle {
			break
		}
	}
	if opts.UntilDone && stepErr == nil && len(results) == opts.Count && results[len(results)-1].Status == chain.StatusIdle {
		stepErr = fmt.Errorf("stopped after --max-steps %d steps; thread %s is still running its workflow (raise --max-steps or step again)", opts.Count, id)
	}
	if len(results) == 0 && stepErr != nil {
		return stepExit(stepErr)
	}
	if results == nil {
		results = []*engine.Result{}
	}
	perr := cmdutil.Print(f.IO, format, results, func(w io.Writer) error {
		last := results[len(results)-1]
		switch last.Status {
		case chain.StatusCompleted:
			fmt.Fprintf(w, "thread %s completed\n", last.Thread)
		case chain.StatusSuspended:
			fmt.Fprintf(w, "thread %s suspended at %s: %s\nanswer with: git uwf thread resume %s -p \"<answer>\"\n",
				last.Thread, deref(last.SuspendedRole), text.FirstLine(deref(last.SuspendMessage), 200), last.Thread)
		default:
			fmt.Fprintf(w, "thread %s is %s; next role: %s\n", last.Thread, last.Status, deref(last.CurrentRole))
		}
		return nil
	})
	if stepErr != nil {
		return stepExit(stepErr)
	}
	return perr
}

// stepExit is busyExit plus exit code 4 for a thread that waits for an
// answer, so that a caller (step --all, a worker) tells it from a failure
// without reading the message.
func stepExit(err error) error {
	if errors.Is(err, engine.ErrSuspended) {
		return &cmdutil.ExitError{Code: cmdutil.ExitSuspended, Err: err}
	}
	return busyExit(err)
}

func printStepLine(w io.Writer, r *engine.Result) {
	status, _ := r.Output["$status"].(string)
	if status == "" {
		status = "done"
	}
	if r.ReusedAttempt != "" {
		fmt.Fprintf(w, "✓ %s (%s) → %s  [%s, reused from failed attempt %s: the agent did not run again]\n", r.Role, r.Agent, status, r.Step, r.ReusedAttempt[:12])
		return
	}
	fmt.Fprintf(w, "✓ %s (%s) → %s  [%s, %s]\n", r.Role, r.Agent, status, r.Step, chain.FormatDuration(msDuration(r.DurationMs)))
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
