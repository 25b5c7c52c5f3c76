//go:build unix

package agentkit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/git-uwf/git-uwf/agentkit/supervisor"
	"github.com/git-uwf/git-uwf/internal/lockedexec"
)

// Run runs the agent command described by inv and waits for it.
//
// The child runs in its own process group. When ctx is done or the timeout
// passes, the whole group gets SIGTERM and, about three seconds later,
// SIGKILL. Output beyond MaxOutput kills the group at once. If the child
// exits but a process it started keeps the output pipes open, Run stops
// waiting for them after the same grace period and kills the group.
//
// Run returns a *Result whenever the child was started, also together with
// an error, so callers can keep its output as evidence. A non-zero exit,
// a signal, a timeout, a cancellation or too much output give an
// *[AgentError]; a command that cannot be found gives an error naming it.
func Run(ctx context.Context, inv Invocation) (*Result, error) {
	if inv.Command == "" {
		return nil, errors.New("run agent: empty command")
	}
	path, err := resolveCommand(inv.Command, inv.Env)
	if err != nil {
		return nil, err
	}
	if inv.Dir != "" {
		if fi, err := os.Stat(inv.Dir); err != nil {
			return nil, fmt.Errorf("agent %q working directory: %w", inv.Command, err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("agent %q working directory %s: not a directory", inv.Command, inv.Dir)
		}
	}
	maxOut, runCtx, stop := inv.limits(ctx)
	defer stop(nil)

	var cmd *exec.Cmd
	var parentEnd *os.File
	if inv.Supervisor != "" {
		// The supervisor leads the group and outlives us to kill it: it
		// reads end of file from this pipe when we die.
		childEnd, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("start agent %q: %w", inv.Command, err)
		}
		defer childEnd.Close()
		parentEnd = w
		defer parentEnd.Close()
		args := append([]string{supervisor.Arg, strconv.Itoa(1 + len(inv.Hold)), path, inv.Command}, inv.Args...)
		cmd = exec.CommandContext(runCtx, inv.Supervisor, args...)
		cmd.ExtraFiles = append([]*os.File{childEnd}, inv.Hold...)
	} else {
		cmd = exec.CommandContext(runCtx, path, inv.Args...)
		cmd.Args[0] = inv.Command
	}
	cmd.Env = inv.Env
	cmd.Dir = inv.Dir
	cmd.Stdin = inv.Stdin
	overflow := func() { stop(ErrOutputTooLarge) }
	stdout := &cappedBuffer{max: maxOut, onOverflow: overflow}
	stderr := &cappedBuffer{max: maxOut, live: inv.Stderr, onOverflow: overflow}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if inv.Supervisor == "" {
		setParentDeathSignal(cmd.SysProcAttr)
	}
	cmd.Cancel = func() error {
		sig := syscall.SIGTERM
		if errors.Is(context.Cause(runCtx), ErrOutputTooLarge) {
			sig = syscall.SIGKILL
		}
		if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
			if errors.Is(err, syscall.ESRCH) {
				return os.ErrProcessDone
			}
			return err
		}
		return nil
	}
	grace := inv.KillGrace
	if grace <= 0 {
		grace = killGrace
	}
	cmd.WaitDelay = grace

	start := time.Now()
	// Started from a thread of its own (lockedexec): the parent-death
	// signal must not fire while this process runs on.
	done, err := lockedexec.Start(cmd)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("agent command %q not found: %w", inv.Command, err)
		}
		return nil, fmt.Errorf("start agent %q: %w", inv.Command, err)
	}
	waitErr := <-done
	// Whatever the agent left running in its group (a background job,
	// a grandchild that closed its output) must not outlive the step.
	// The group id cannot have been reused while a member is left.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	res := &Result{
		Stdout:   stdout.buf.Bytes(),
		Stderr:   stderr.buf.Bytes(),
		ExitCode: -1,
		Duration: time.Since(start),
	}
	// Wait reports the child's own exit status in preference to the context
	// error, so a non-nil error while our context is done means we stopped it.
	stopped := waitErr != nil && runCtx.Err() != nil
	overflowed := stdout.overflowed || stderr.overflowed

	ae := &AgentError{Command: inv.Command, StderrTail: tailUTF8(res.Stderr, stderrTailSize), ExitCode: -1}
	if ps := cmd.ProcessState; ps != nil {
		res.ExitCode = ps.ExitCode()
		ae.ExitCode = res.ExitCode
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ae.Signal = ws.Signal().String()
		}
	}
	if ae.setStopCause(inv, maxOut, overflowed, stderr.overflowed, stopped, context.Cause(runCtx)) {
		return res, ae
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(waitErr, &exitErr):
		// ExitCode and Signal are set above.
	case errors.Is(waitErr, exec.ErrWaitDelay), waitErr == nil:
		return res, nil
	default:
		return res, fmt.Errorf("wait for agent %q: %w", inv.Command, waitErr)
	}
	return res, ae
}

// resolveCommand finds the program for command. Without a slash it is
// looked up in the PATH of env when env is given, else in our own PATH.
func resolveCommand(command string, env []string) (string, error) {
	if strings.Contains(command, "/") {
		fi, err := os.Stat(command)
		if err != nil {
			return "", fmt.Errorf("agent command %q not found: %w", command, err)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("agent command %q is not an executable file", command)
		}
		return command, nil
	}
	if env == nil {
		path, err := exec.LookPath(command)
		if err != nil {
			return "", fmt.Errorf("agent command %q not found in PATH: %w", command, err)
		}
		return path, nil
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, command)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("agent command %q not found in PATH: %w", command, exec.ErrNotFound)
}
