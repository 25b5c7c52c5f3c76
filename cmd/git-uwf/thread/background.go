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

// backgroundAction reads `thread step <id> --background …`.
func backgroundAction(c *cli.Context, f *cmdutil.Factory) error {
	arg, err := cmdutil.OneArg(c, "thread id")
	if err != nil {
		return err
	}
	opts := stepOptionsOf(c, f)
	opts.Thread = arg
	if opts.Format, err = cmdutil.FormatOf(c); err != nil {
		return err
	}
	return backgroundRun(c.Context, &opts)
}

// backgroundRun starts `thread step <id> …` as a detached process that
// writes its output to a log and its outcome to a file, and returns.
func backgroundRun(ctx context.Context, opts *StepOptions) error {
	f := opts.Factory
	repo, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	id, err := repo.ResolveThread(ctx, opts.Thread)
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
	args := backgroundArgv(*opts, string(id), outcome)
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
	return cmdutil.Print(f.IO, opts.Format, out, func(w io.Writer) error {
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

type joinResult struct {
	Thread   chain.ThreadID `json:"thread"`
	ExitCode int            `json:"exitCode"`
	Error    string         `json:"error,omitempty"`
	Status   chain.Status   `json:"status,omitempty"`
}
