package iostreams

import (
	"bytes"
	"io"
	"os"
	"sync"
	"time"
)

// IOStreams holds the standard streams of one command invocation and what is
// known about them. The zero value is not useful; use [System] or [Test].
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// Whether each stream is a terminal, and whether NO_COLOR is set:
	// asked of the system when first wanted (System), or fixed (Test and
	// the Set methods). Nil is false.
	stdinTTY  func() bool
	stdoutTTY func() bool
	stderrTTY func() bool
	noColor   func() bool

	// now and tick drive StartProgress; tests in this package replace them.
	now  func() time.Time
	tick time.Duration
}

// System returns streams wrapping os.Stdin, os.Stdout and os.Stderr.
// Whether a stream is a terminal is found out the first time it is asked,
// once; a command that never asks costs no system calls. Colour is
// disabled when the NO_COLOR environment variable is set to a non-empty
// value, which is read when colour is first asked about and Out is a
// terminal: the first read of the environment copies all of it into a map.
func System() *IOStreams {
	// The files wrapped now, not whatever os.Stdin and the others hold
	// when first asked.
	in, out, errOut := os.Stdin, os.Stdout, os.Stderr
	return &IOStreams{
		In:        in,
		Out:       out,
		ErrOut:    errOut,
		stdinTTY:  sync.OnceValue(func() bool { return isTerminal(in) }),
		stdoutTTY: sync.OnceValue(func() bool { return isTerminal(out) }),
		stderrTTY: sync.OnceValue(func() bool { return isTerminal(errOut) }),
		noColor:   sync.OnceValue(func() bool { return os.Getenv("NO_COLOR") != "" }),
		now:       time.Now,
		tick:      100 * time.Millisecond,
	}
}

// Test returns streams backed by fresh buffers, none of them a terminal.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	ios = &IOStreams{
		In:     in,
		Out:    out,
		ErrOut: errOut,
		now:    time.Now,
		tick:   100 * time.Millisecond,
	}
	return ios, in, out, errOut
}

// IsStdinTTY reports whether standard input is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY != nil && s.stdinTTY() }

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY != nil && s.stdoutTTY() }

// IsStderrTTY reports whether standard error is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY != nil && s.stderrTTY() }

// SetStdinTTY overrides terminal detection for standard input.
func (s *IOStreams) SetStdinTTY(v bool) { s.stdinTTY = fixed(v) }

// SetStdoutTTY overrides terminal detection for standard output.
func (s *IOStreams) SetStdoutTTY(v bool) { s.stdoutTTY = fixed(v) }

// SetStderrTTY overrides terminal detection for standard error.
func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = fixed(v) }

// SetNoColor disables (true) or re-allows (false) colour, as NO_COLOR does.
func (s *IOStreams) SetNoColor(v bool) { s.noColor = fixed(v) }

// ColorEnabled reports whether output to Out may use colour: Out is a
// terminal and NO_COLOR is not set.
func (s *IOStreams) ColorEnabled() bool {
	return s.IsStdoutTTY() && (s.noColor == nil || !s.noColor())
}

// fixed returns a check that answers v.
func fixed(v bool) func() bool { return func() bool { return v } }

// isTerminal reports whether f is a character device other than the null
// device (which is a character device too, and what CI jobs often get as
// stdin).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	if err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}
