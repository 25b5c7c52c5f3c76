package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exit codes with a meaning of their own; see the package documentation.
const (
	ExitOK        = 0
	ExitFailure   = 1
	ExitUsage     = 2
	ExitSuspended = 4
	ExitLocked    = 75
	ExitCancelled = 130
)

// ErrSilent makes the command exit 1 without printing anything; use it after
// the command has reported the problem itself.
var ErrSilent = errors.New("silent error")

// ErrCancelled reports that the user interrupted the command (exit 130).
var ErrCancelled = errors.New("cancelled")

// FlagError is a usage problem: an unknown flag, a missing or malformed
// argument. It exits 2 and is printed with a hint to run the command with -h.
type FlagError struct {
	Err error
	// Command is the command path for the hint, e.g. "thread start". The
	// root command fills it in when empty.
	Command string
}

// FlagErrorf returns a *FlagError with a formatted message.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

func (e *FlagError) Error() string {
	if e.Err == nil {
		return "usage error"
	}
	return e.Err.Error()
}

func (e *FlagError) Unwrap() error { return e.Err }

// Hint returns the line telling the user where to find usage.
func (e *FlagError) Hint() string {
	cmd := "git uwf"
	if e.Command != "" {
		cmd += " " + e.Command
	}
	return fmt.Sprintf("run '%s -h' for usage", cmd)
}

// ExitError ends the command with a specific exit code. Err may be nil for a
// silent exit, as in `cas has` reporting absence with exit 1.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode maps an error returned by a command to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	if ee, ok := errors.AsType[*ExitError](err); ok {
		return ee.Code
	}
	if _, ok := errors.AsType[*FlagError](err); ok {
		return ExitUsage
	}
	if errors.Is(err, ErrCancelled) || errors.Is(err, context.Canceled) {
		return ExitCancelled
	}
	return ExitFailure
}

// PrintError writes err for the user: "error: <message>", followed by the
// usage hint for a *FlagError. A multi-line message (a validation report) is
// written as is after "error: ". Nothing is written for ErrSilent, for
// cancellation, or for an *ExitError without a message.
func PrintError(w io.Writer, err error) {
	if err == nil || errors.Is(err, ErrSilent) ||
		errors.Is(err, ErrCancelled) || errors.Is(err, context.Canceled) {
		return
	}
	if ee, ok := errors.AsType[*ExitError](err); ok && ee.Err == nil {
		return
	}
	msg := strings.TrimRight(err.Error(), "\n")
	if fe, ok := errors.AsType[*FlagError](err); ok {
		if strings.Contains(msg, "\n") {
			msg += "\n" + fe.Hint()
		} else {
			msg += "; " + fe.Hint()
		}
	}
	fmt.Fprintf(w, "error: %s\n", msg)
}
