package agentkit

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/git-uwf/git-uwf/internal/text"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrOutputTooLarge is wrapped by the error [Run] returns when the child
// wrote more than Invocation.MaxOutput bytes to stdout or stderr.
var ErrOutputTooLarge = errors.New("output too large")

// DefaultMaxOutput is the stdout and stderr cap used when
// Invocation.MaxOutput is 0.
const DefaultMaxOutput = 64 << 20

// killGrace is how long [Run] waits after SIGTERM before it sends SIGKILL to
// the process group, and how long it waits for the I/O pipes after the child
// exited.
const killGrace = 3 * time.Second

// stderrTailSize is the size of AgentError.StderrTail.
const stderrTailSize = 2 << 10

// Invocation describes one run of an external agent command.
type Invocation struct {
	// Command is the program to run, looked up in PATH when it has no slash.
	Command string
	Args    []string
	// Env is the child's environment; nil inherits os.Environ(), an empty
	// non-nil slice gives an empty environment.
	Env []string
	// Dir is the working directory; "" uses the current one.
	Dir string
	// Stdin is copied to the child's stdin, which is closed afterwards; nil
	// gives an empty stdin.
	Stdin io.Reader
	// Timeout bounds the run; 0 means no timeout besides the context.
	Timeout time.Duration
	// MaxOutput caps stdout and stderr each; 0 means DefaultMaxOutput.
	// Going over it kills the process group and fails the run with
	// ErrOutputTooLarge; the first MaxOutput bytes are kept.
	MaxOutput int64
	// Stderr, when set, receives a live copy of the child's stderr.
	// Write errors on it are ignored.
	Stderr io.Writer
	// KillGrace is how long to wait after SIGTERM before SIGKILL; 0 means
	// 3 s. An agent that runs a CLI of its own should use a shorter grace
	// than the engine that runs the agent, so that it always gets to kill
	// its child before it is killed itself.
	KillGrace time.Duration
	// Supervisor, when set, is a program that calls [SuperviseIfAsked]
	// first thing in main (git-uwf, or an agent built on [Main]) and is
	// started in place of the command to supervise it: it kills the
	// command's whole process group as soon as the process that called Run
	// dies, even by SIGKILL. Without it only the command itself gets a
	// parent-death signal (Linux), and processes it started live on.
	Supervisor string
	// Hold are open files the supervisor keeps open until the process group
	// is gone (for example the lock of the thread being stepped, so that a
	// retried step cannot start beside an agent of the previous one). They
	// are not passed to the command. Ignored without a Supervisor.
	Hold []*os.File
}

// Result is what a finished (or stopped) child left behind.
type Result struct {
	Stdout, Stderr []byte
	// ExitCode is the exit status, or -1 when the child was ended by a signal.
	ExitCode int
	Duration time.Duration
}

// AgentError reports an agent command that failed, timed out, was cancelled
// or produced too much output. Err, when set, is the underlying cause
// (context.Canceled, context.DeadlineExceeded, ErrOutputTooLarge, …) and is
// returned by Unwrap.
type AgentError struct {
	Command  string
	ExitCode int
	TimedOut bool
	// Timeout is the limit that was hit when TimedOut is set.
	Timeout time.Duration
	// Signal names the signal that ended the child, if any.
	Signal string
	// StderrTail is the end of the child's stderr (about 2 KiB, valid UTF-8).
	StderrTail string
	Err        error
}

func (e *AgentError) Error() string {
	name := fmt.Sprintf("agent %q", e.Command)
	var msg string
	switch {
	case e.TimedOut:
		msg = fmt.Sprintf("%s timed out after %s", name, e.Timeout)
	case errors.Is(e.Err, ErrOutputTooLarge):
		msg = fmt.Sprintf("%s: %v", name, e.Err)
	case e.Err != nil:
		msg = fmt.Sprintf("%s stopped: %v", name, e.Err)
	case e.Signal != "":
		msg = fmt.Sprintf("%s killed by signal %s", name, e.Signal)
	default:
		msg = fmt.Sprintf("%s exited with status %d", name, e.ExitCode)
	}
	if line := lastLine(e.StderrTail); line != "" && !e.TimedOut && e.Err == nil {
		msg += ": " + line
	}
	return msg
}

func (e *AgentError) Unwrap() error { return e.Err }

// lastLine returns the last non-empty line of s, shortened to 300 bytes.
func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return text.ClipBytes(l, 300)
		}
	}
	return ""
}

// tailUTF8 returns the last n bytes of b as valid UTF-8.
func tailUTF8(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// cappedBuffer keeps the first max bytes written to it and calls onOverflow
// once when more arrive. It never fails a write, so the child's pipe keeps
// draining until the child is killed.
type cappedBuffer struct {
	buf        bytes.Buffer
	max        int64
	live       io.Writer
	overflowed bool
	onOverflow func()
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.live != nil {
		if _, err := c.live.Write(p); err != nil {
			c.live = nil
		}
	}
	room := c.max - int64(c.buf.Len())
	if int64(len(p)) > room {
		if room > 0 {
			c.buf.Write(p[:room])
		}
		if !c.overflowed {
			c.overflowed = true
			c.onOverflow()
		}
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}
