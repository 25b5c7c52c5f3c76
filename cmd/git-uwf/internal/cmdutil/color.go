package cmdutil

import "github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"

// statusColors are the ANSI colours of thread states and common output
// statuses.
var statusColors = map[string]string{
	"completed": "32", "approved": "32", "done": "32",
	"running":   "36",
	"suspended": "33",
	"failed":    "31", "rejected": "31",
	"cancelled": "2",
}

// StatusColorer returns a function that colours a status word for
// terminal output, or leaves it as is when colour is off (stdout not a
// terminal, or NO_COLOR set).
func StatusColorer(ios *iostreams.IOStreams) func(string) string {
	if !ios.ColorEnabled() {
		return func(s string) string { return s }
	}
	return ColorStatus
}

// ColorStatus wraps a known status word in its ANSI colour.
func ColorStatus(s string) string {
	code, ok := statusColors[s]
	if !ok {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
