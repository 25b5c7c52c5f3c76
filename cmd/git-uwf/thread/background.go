package thread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/engine/scheduler"
	"github.com/git-uwf/git-uwf/internal/workdir"
)

// backgroundAction starts `thread step <id> …` as a detached process that
// writes its output to a log and its outcome to a file, and returns.
func backgroundAction(c *cli.Context, f *cmdutil.Factory) error {
	arg, err := cmdutil.OneArg(c, "thread id")
	if err != nil {
		return err
	}
	format, err := cmdutil.FormatOf(c)
	if err != nil {
		return err
	}
	ctx := c.Context
	repo, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	id, err := repo.ResolveThread(ctx, arg)
	if err != nil {
		return err
	}
	bg := scheduler.NewBackgrounds(repo.UwfDir())
	// Checking for a running step and recording the new one is one step:
	// two starts at once would otherwise both see none and both start.
	unlock, err := bg.Lock(string(id))
	if err != nil {
		return err
	}
	defer unlock()
	if rec, err := bg.Load(string(id)); err == nil && rec.Alive() {
		if o, _ := rec.ReadOutcome(); o == nil {
			return busyExit(&chain.BusyError{Thread: id, PID: rec.PID})
		}
	}
	self, err := f.Executable()
	if err != nil {
		return fmt.Errorf("find the git-uwf executable: %w", err)
	}
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	// Keep the last few runs' logs and outcomes, and this one's.
	if err := bg.Prune(string(id), scheduler.KeepRuns-1); err != nil {
		return err
	}
	logPath, outcome, err := bg.Paths(string(id), f.Now())
	if err != nil {
		return err
	}
	args := backgroundArgv(stepOptionsOf(c), string(id), outcome)
	// Only the owner reads it: it holds the agent's unredacted stderr.
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("background step log: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(self, args...)
	cmd.Dir = dir
	cmd.Env = f.Environ()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = scheduler.DetachedAttrs()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the background step of thread %s: %w", id, err)
	}
	rec := scheduler.Background{Thread: string(id), PID: cmd.Process.Pid, Log: logPath, Outcome: outcome, StartedAtMs: f.Now().UnixMilli()}
	if err := bg.Save(rec); err != nil {
		return err
	}
	_ = cmd.Process.Release()
	out := map[string]any{"thread": id, "pid": rec.PID, "log": logPath}
	return cmdutil.Print(f.IO, format, out, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "thread %s stepping in the background (pid %d)\nlog: %s\nwait for it with: git uwf thread join %s\n", id, rec.PID, logPath, id)
		return err
	})
}

// backgroundArgv is the command line of the detached `thread step` that
// runs thread with opts' flags and writes its outcome to outcome: the
// same flags as the command that started it (a relative --cwd means the
// same directory: the child starts in the same one).
func backgroundArgv(opts StepOptions, thread, outcome string) []string {
	var args []string
	if opts.Verbose {
		args = append(args, "--verbose") // a global flag: before the command
	}
	args = append(args, "thread", "step", thread, "--outcome-file", outcome)
	if opts.Count != 1 {
		args = append(args, "--count", strconv.Itoa(opts.Count))
	}
	if opts.UntilDone {
		args = append(args, "--until-done")
	}
	if opts.MaxSteps != DefaultMaxSteps {
		args = append(args, "--max-steps", strconv.Itoa(opts.MaxSteps))
	}
	if opts.Cwd != "" {
		args = append(args, "--cwd", opts.Cwd)
	}
	return append(args, perThreadArgs(opts)...)
}

// perThreadArgs are the flags of opts that apply to any one thread's
// step, for a child `thread step` process.
func perThreadArgs(opts StepOptions) []string {
	var args []string
	if opts.Agent != "" {
		args = append(args, "--agent", opts.Agent)
	}
	if opts.Timeout > 0 {
		args = append(args, "--timeout", opts.Timeout.String())
	}
	if opts.OutsideWorktree {
		args = append(args, "--"+workdir.OutsideFlag)
	}
	if opts.Rerun {
		args = append(args, "--rerun")
	}
	if opts.Quiet {
		args = append(args, "--quiet")
	}
	return args
}

// writeOutcome records how a background step ended, for thread join, and
// passes its error on.
func writeOutcome(path string, err error) error {
	o := scheduler.BackgroundOutcome{ExitCode: cmdutil.ExitCode(err), EndedAtMs: time.Now().UnixMilli()}
	if err != nil {
		o.Error = err.Error()
	}
	if werr := scheduler.WriteOutcome(path, o); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

func newCmdJoin(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "join",
		Usage:     "Wait for background steps to end; exit with the outcome of the first that failed",
		ArgsUsage: "<thread>…",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "timeout", Usage: "give up after `DURATION` (exit 75; the steps keep running)"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cmdutil.FlagErrorf("thread join needs at least one thread id")
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return joinRun(c.Context, f, c.Args().Slice(), c.Duration("timeout"), format)
		},
	}
}

type joinResult struct {
	Thread   chain.ThreadID `json:"thread"`
	ExitCode int            `json:"exitCode"`
	Error    string         `json:"error,omitempty"`
	Status   chain.Status   `json:"status,omitempty"`
}

func joinRun(ctx context.Context, f *cmdutil.Factory, args []string, timeout time.Duration, format cmdutil.Format) error {
	repo, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	bg := scheduler.NewBackgrounds(repo.UwfDir())
	var recs []*scheduler.Background
	for _, a := range args {
		id, err := repo.ResolveThread(ctx, a)
		if err != nil {
			return err
		}
		rec, err := bg.Load(string(id))
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var results []joinResult
	var first error
	for _, rec := range recs {
		o, err := rec.Wait(ctx)
		id := chain.ThreadID(rec.Thread)
		r := joinResult{Thread: id}
		switch {
		case err != nil && ctx.Err() != nil && timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
			return &cmdutil.ExitError{Code: cmdutil.ExitLocked, Err: fmt.Errorf("thread %s: the background step is still running after --timeout %s", id, timeout)}
		case err != nil && ctx.Err() != nil:
			return cmdutil.ErrCancelled
		case err != nil:
			r.ExitCode, r.Error = cmdutil.ExitFailure, err.Error()
		default:
			r.ExitCode, r.Error = o.ExitCode, o.Error
		}
		if t, err := repo.Thread(ctx, id); err == nil {
			if st, err := repo.State(ctx, t); err == nil {
				r.Status = st.Status
			}
		}
		if r.ExitCode != 0 && first == nil {
			first = &cmdutil.ExitError{Code: r.ExitCode, Err: fmt.Errorf("thread %s: %s", id, r.Error)}
		}
		results = append(results, r)
	}
	perr := cmdutil.Print(f.IO, format, results, func(w io.Writer) error {
		for _, r := range results {
			if r.ExitCode == 0 {
				fmt.Fprintf(w, "thread %s: background step done; the thread is %s\n", r.Thread, r.Status)
			} else {
				fmt.Fprintf(w, "thread %s: background step failed (exit %d); the thread is %s\n", r.Thread, r.ExitCode, r.Status)
			}
		}
		return nil
	})
	if first != nil {
		return first
	}
	return perr
}
