package thread

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/engine"
	"github.com/git-uwf/git-uwf/engine/scheduler"
	"github.com/git-uwf/git-uwf/internal/lockedexec"
	"github.com/git-uwf/git-uwf/internal/text"
)

// AllOptions are the inputs of `thread step --all`.
type AllOptions struct {
	// Factory gives the run the streams, the repository, the git-uwf
	// executable and the environment its step processes get.
	Factory *cmdutil.Factory
	Format  cmdutil.Format

	Jobs      int
	Workflow  string
	UntilDone bool
	MaxSteps  int
	// Step holds the flags every thread's step gets (--agent, --timeout,
	// --rerun, --quiet, --outside-worktree; see perThreadArgs).
	Step StepOptions
}

// stepAllRun steps every runnable (idle) thread, opts.Jobs at a time. Each
// step is a `git-uwf thread step <id>` process of its own: the same lock,
// limit, failure recording and redaction as a step started by hand.
func stepAllRun(ctx context.Context, opts *AllOptions) error {
	f, format := opts.Factory, opts.Format
	repo, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	self, err := f.Executable()
	if err != nil {
		return fmt.Errorf("find the git-uwf executable: %w", err)
	}
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	list, err := repo.List(ctx, chain.ListOptions{Statuses: []chain.Status{chain.StatusIdle}})
	if err != nil {
		return err
	}
	// Oldest first: the threads waiting longest go first.
	sort.SliceStable(list, func(i, j int) bool { return list[i].Thread < list[j].Thread })
	var jobs []scheduler.Job
	for _, s := range list {
		if opts.Workflow == "" || s.Workflow == opts.Workflow {
			jobs = append(jobs, scheduler.Job{Thread: string(s.Thread), Workflow: s.Workflow})
		}
	}
	if opts.Jobs < 1 {
		opts.Jobs = runtime.NumCPU()
	}
	if len(jobs) == 0 {
		return cmdutil.Print(f.IO, format, []scheduler.Row{}, func(w io.Writer) error {
			_, err := fmt.Fprintln(w, "no runnable threads")
			return err
		})
	}
	args := perThreadArgs(opts.Step)
	live := newLiveLines(f.IO.ErrOut, f.IO.IsStderrTTY() && format == cmdutil.FormatText)
	defer live.close()
	rows := scheduler.RunPool(ctx, jobs, scheduler.PoolOptions{
		Jobs: opts.Jobs, UntilDone: opts.UntilDone, MaxSteps: opts.MaxSteps,
		Step: func(ctx context.Context, j scheduler.Job) scheduler.Outcome {
			return stepProcess(ctx, self, dir, f.Environ(), j.Thread, args)
		},
		Started: func(j scheduler.Job) { live.start(j.Thread, j.Thread+" · "+j.Workflow) },
		Finished: func(j scheduler.Job, o scheduler.Outcome, took time.Duration) {
			mark := "✓"
			if !o.Stepped {
				mark = "✗"
			}
			line := fmt.Sprintf("%s %s · %s → %s  [%s]", mark, j.Thread, j.Workflow, o.Status, chain.FormatDuration(took))
			if o.Err != "" {
				line += ": " + text.FirstLine(o.Err, 160)
			}
			live.finish(j.Thread, line)
		},
	})
	live.close()
	perr := cmdutil.Print(f.IO, format, rows, func(w io.Writer) error {
		t := cmdutil.NewTable("THREAD", "WORKFLOW", "STEPS", "STATUS", "TIME")
		for _, r := range rows {
			t.Row(r.Thread, r.Workflow, fmt.Sprint(r.Steps), r.Status, chain.FormatDuration(r.Elapsed))
		}
		_, err := t.WriteTo(w)
		return err
	})
	if ctx.Err() != nil {
		return cmdutil.ErrCancelled
	}
	if perr != nil {
		return perr
	}
	return allExit(rows, *opts)
}

// allExit is the exit status of a run: 1 when a step failed, 75 when
// steps were only refused (busy, dropped), 0 otherwise.
func allExit(rows []scheduler.Row, opts AllOptions) error {
	var failed, refused, unfinished int
	for _, r := range rows {
		switch r.Status {
		case "failed", "cancelled":
			failed++
		case "busy", "dropped":
			refused++
		case "idle":
			if opts.UntilDone {
				unfinished++
			}
		}
	}
	switch {
	case failed > 0:
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("%d of %d thread(s) failed a step (see the table)", failed, len(rows))}
	case unfinished > 0:
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("%d thread(s) still running their workflow after --max-steps %d steps", unfinished, opts.MaxSteps)}
	case refused > 0:
		return &cmdutil.ExitError{Code: cmdutil.ExitLocked, Err: fmt.Errorf("%d thread(s) were busy or refused by their workflow limit; step again later", refused)}
	}
	return nil
}

// StepProcess runs one step of a thread as its own git-uwf process (see
// stepProcess); git uwf worker steps the threads it claims with it.
func StepProcess(ctx context.Context, self, dir string, env []string, thread string, extra []string) scheduler.Outcome {
	return stepProcess(ctx, self, dir, env, thread, extra)
}

// stepProcess runs `git-uwf thread step <thread> --format json` and reads
// what came of it. On ctx's end the process gets SIGINT, as from a
// terminal's Ctrl-C, and records the interruption itself.
func stepProcess(ctx context.Context, self, dir string, env []string, thread string, extra []string) scheduler.Outcome {
	argv := append([]string{"thread", "step", thread, "--format", "json"}, extra...)
	cmd := exec.CommandContext(ctx, self, argv...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = scheduler.StepChildAttrs()
	cmd.Cancel = func() error { return scheduler.Interrupt(cmd.Process) }
	cmd.WaitDelay = 30 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Started from a thread of its own: the child's parent-death signal
	// (StepChildAttrs) must not fire while this process runs on.
	err := lockedexec.Run(cmd)
	msg := stepError(stderr.String())
	if err == nil {
		var results []engine.Result
		if jerr := json.Unmarshal(stdout.Bytes(), &results); jerr != nil || len(results) == 0 {
			return scheduler.Outcome{Status: "failed", Err: fmt.Sprintf("unreadable step result: %v", jerr)}
		}
		return scheduler.Outcome{Status: string(results[len(results)-1].Status), Stepped: true}
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return scheduler.Outcome{Status: "failed", Err: err.Error()}
	}
	switch {
	case ctx.Err() != nil || exit.ExitCode() == cmdutil.ExitCancelled:
		return scheduler.Outcome{Status: "interrupted", Err: msg}
	case exit.ExitCode() == cmdutil.ExitLocked && strings.Contains(msg, "is busy"):
		return scheduler.Outcome{Status: "busy", Err: msg}
	case exit.ExitCode() == cmdutil.ExitLocked:
		return scheduler.Outcome{Status: "dropped", Err: msg}
	case exit.ExitCode() == cmdutil.ExitSuspended:
		return scheduler.Outcome{Status: string(chain.StatusSuspended), Err: msg}
	case strings.Contains(msg, "was cancelled while stepping"):
		return scheduler.Outcome{Status: "cancelled", Err: msg}
	}
	return scheduler.Outcome{Status: "failed", Err: msg}
}

// stepError picks the reason out of a step process's stderr: its
// "error: " line, else its last line (the rest is progress).
func stepError(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if msg, ok := strings.CutPrefix(lines[i], "error: "); ok {
			return strings.TrimSpace(strings.Join(append([]string{msg}, lines[i+1:]...), "\n"))
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}

// liveLines shows one line per running step on a terminal (redrawn in
// place) and prints each finished step's line above them; elsewhere it
// prints only the finished lines.
type liveLines struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	order   []string
	running map[string]liveLine
	drawn   int
	stop    chan struct{}
	stopped sync.Once
	exited  chan struct{}
}

type liveLine struct {
	label string
	since time.Time
}

func newLiveLines(w io.Writer, tty bool) *liveLines {
	l := &liveLines{w: w, tty: tty, running: map[string]liveLine{}, stop: make(chan struct{}), exited: make(chan struct{})}
	if !tty {
		close(l.exited)
		return l
	}
	go func() {
		defer close(l.exited)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				l.mu.Lock()
				l.redraw("")
				l.mu.Unlock()
			}
		}
	}()
	return l
}

func (l *liveLines) start(key, label string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.order = append(l.order, key)
	l.running[key] = liveLine{label: label, since: time.Now()}
	if l.tty {
		l.redraw("")
	}
}

func (l *liveLines) finish(key, line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.running, key)
	for i, k := range l.order {
		if k == key {
			l.order = append(l.order[:i], l.order[i+1:]...)
			break
		}
	}
	if !l.tty {
		fmt.Fprintln(l.w, line)
		return
	}
	l.redraw(line)
}

// redraw erases the running lines drawn last time, prints done (when
// given) for good and draws the running lines again. l.mu is held.
func (l *liveLines) redraw(done string) {
	var b strings.Builder
	if l.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", l.drawn)
	}
	b.WriteString("\r\x1b[J")
	if done != "" {
		b.WriteString(done + "\n")
	}
	for _, k := range l.order {
		r := l.running[k]
		fmt.Fprintf(&b, "… %s · %s\n", r.label, time.Since(r.since).Truncate(time.Second))
	}
	l.drawn = len(l.order)
	io.WriteString(l.w, b.String())
}

func (l *liveLines) close() {
	l.stopped.Do(func() {
		if l.tty {
			close(l.stop)
		}
		<-l.exited
		l.mu.Lock()
		if l.tty && l.drawn > 0 {
			fmt.Fprintf(l.w, "\x1b[%dA\r\x1b[J", l.drawn)
			l.drawn = 0
		}
		l.mu.Unlock()
	})
}
