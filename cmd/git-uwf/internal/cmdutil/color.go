package cmdutil

import "github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"

// statusColor returns the ANSI colour of a thread state or common output
// status. A switch, not a map at package level, which every process would
// build at start.
func statusColor(s string) (string, bool) {
	switch s {
	case "completed", "approved", "done":
		return "32", true
	case "running":
		return "36", true
	case "suspended":
		return "33", true
	case "failed", "rejected":
		return "31", true
	case "cancelled":
		return "2", true
	}
	return "", false
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
	code, ok := statusColor(s)
	if !ok {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
