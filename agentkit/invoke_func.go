package agentkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// errTimedOut is the context cause [Run] and [RunFunc] use for
// Invocation.Timeout.
var errTimedOut = errors.New("agent timeout")

// AgentFunc is an agent that runs inside this process: it plays the
// protocol like an agent command would, writing its AdapterOutput line to
// stdout and its messages to stderr, and returns its exit status. It must
// stop soon after ctx is done.
type AgentFunc func(ctx context.Context, stdout, stderr io.Writer) int

// RunFunc runs fn in place of the command inv describes, with the same
// limits and results as [Run]: stdout and stderr are captured up to
// MaxOutput (stderr also copied live to inv.Stderr), Timeout and ctx
// cancel fn's context, and a non-zero status, a timeout, a cancellation,
// too much output or a panic give an *[AgentError] together with the
// *Result. inv.Command names the agent in errors; Args, Env, Dir and Stdin
// are the caller's to hand to fn.
//
// When fn does not return within the kill grace after its context was
// cancelled, RunFunc stops waiting and reports the run as stopped; fn's
// later writes are discarded.
func RunFunc(ctx context.Context, inv Invocation, fn AgentFunc) (*Result, error) {
	maxOut, runCtx, stop := inv.limits(ctx)
	defer stop(nil)

	var mu sync.Mutex
	overflow := func() { stop(ErrOutputTooLarge) }
	stdoutBuf := &cappedBuffer{max: maxOut, onOverflow: overflow}
	stderrBuf := &cappedBuffer{max: maxOut, live: inv.Stderr, onOverflow: overflow}
	abandoned := false
	stdout := lockedWriter{mu: &mu, w: stdoutBuf, abandoned: &abandoned}
	stderr := lockedWriter{mu: &mu, w: stderrBuf, abandoned: &abandoned}

	grace := inv.KillGrace
	if grace <= 0 {
		grace = killGrace
	}
	start := time.Now()
	done := make(chan int, 1)
	go func() {
		code := 2
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(stderr, "panic: %v\n", r)
			}
			done <- code
		}()
		code = fn(runCtx, stdout, stderr)
	}()
	code, finished := 0, true
	select {
	case code = <-done:
	case <-runCtx.Done():
		timer := time.NewTimer(grace)
		select {
		case code = <-done:
		case <-timer.C:
			finished = false
		}
		timer.Stop()
	}

	mu.Lock()
	defer mu.Unlock()
	abandoned = true
	res := &Result{
		Stdout:   append([]byte(nil), stdoutBuf.buf.Bytes()...),
		Stderr:   append([]byte(nil), stderrBuf.buf.Bytes()...),
		ExitCode: code,
		Duration: time.Since(start),
	}
	if !finished {
		res.ExitCode = -1
	}
	// As with a child process, the agent's own status wins over the
	// context: a non-zero status while the context is done means we
	// stopped it.
	stopped := !finished || (code != 0 && runCtx.Err() != nil)
	overflowed := stdoutBuf.overflowed || stderrBuf.overflowed
	ae := &AgentError{Command: inv.Command, StderrTail: tailUTF8(res.Stderr, stderrTailSize), ExitCode: res.ExitCode}
	if !ae.setStopCause(inv, maxOut, overflowed, stderrBuf.overflowed, stopped, context.Cause(runCtx)) && code == 0 {
		return res, nil
	}
	return res, ae
}

// limits returns what bounds a run of inv however the agent runs: its
// output cap, and a context that its Timeout ends (with errTimedOut as
// the cause) and that stop cancels with a cause of the caller's. Call stop
// when the run is over.
func (inv Invocation) limits(ctx context.Context) (maxOut int64, runCtx context.Context, stop context.CancelCauseFunc) {
	maxOut = inv.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	runCtx = ctx
	cancelTimeout := func() {}
	if inv.Timeout > 0 {
		runCtx, cancelTimeout = context.WithTimeoutCause(ctx, inv.Timeout, errTimedOut)
	}
	runCtx, cancel := context.WithCancelCause(runCtx)
	return maxOut, runCtx, func(cause error) {
		cancel(cause)
		cancelTimeout()
	}
}

// setStopCause sets ae.Err when the run was cut short, however the agent
// ran: it wrote more than maxOut bytes (stderrOverflowed names the stream),
// its timeout fired, or its context was cancelled with cause. It reports
// whether one of them applied.
func (ae *AgentError) setStopCause(inv Invocation, maxOut int64, overflowed, stderrOverflowed, stopped bool, cause error) bool {
	switch {
	case overflowed:
		stream := "stdout"
		if stderrOverflowed {
			stream = "stderr"
		}
		ae.Err = fmt.Errorf("%w: %s exceeded %d bytes", ErrOutputTooLarge, stream, maxOut)
	case stopped && errors.Is(cause, errTimedOut):
		ae.TimedOut = true
		ae.Timeout = inv.Timeout
		ae.Err = context.DeadlineExceeded
	case stopped:
		ae.Err = cause
	default:
		return false
	}
	return true
}

// lockedWriter serialises writes to w and drops them once the run that
// owns w has been given up.
type lockedWriter struct {
	mu        *sync.Mutex
	w         io.Writer
	abandoned *bool
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if *l.abandoned {
		return len(p), nil
	}
	return l.w.Write(p)
}
