// Package iostreams describes where a command reads input and writes output.
//
// An [IOStreams] carries the three standard streams plus what is known about
// them: whether each one is a terminal and whether colour may be used.
// [System] wraps the real process streams; [Test] wraps in-memory buffers so
// tests never need a terminal. TTY detection can be overridden with
// [IOStreams.SetStdinTTY], [IOStreams.SetStdoutTTY] and
// [IOStreams.SetStderrTTY].
//
// # Conventions
//
// Data (what a script would parse) goes to Out; progress, diagnostics and an
// agent's streamed output go to ErrOut. Colour is only used when
// [IOStreams.ColorEnabled] reports true. [IOStreams.StartProgress] shows a
// spinner on a terminal and plain start/end lines otherwise.
package iostreams
