package agentkit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestAgentErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  *AgentError
		want string
		is   error
	}{
		{"exit", &AgentError{Command: "claude", ExitCode: 1, StderrTail: "warn\nAPI error: 401\n\n"}, `agent "claude" exited with status 1: API error: 401`, nil},
		{"exit no stderr", &AgentError{Command: "x", ExitCode: 2}, `agent "x" exited with status 2`, nil},
		{"signal", &AgentError{Command: "x", ExitCode: -1, Signal: "killed"}, `agent "x" killed by signal killed`, nil},
		{"timeout", &AgentError{Command: "x", TimedOut: true, Timeout: 2 * time.Second, StderrTail: "noise", Err: context.DeadlineExceeded}, `agent "x" timed out after 2s`, context.DeadlineExceeded},
		{"cancel", &AgentError{Command: "x", Err: context.Canceled}, `agent "x" stopped: context canceled`, context.Canceled},
		{"overflow", &AgentError{Command: "x", Err: ErrOutputTooLarge}, `agent "x": output too large`, ErrOutputTooLarge},
		{"long line", &AgentError{Command: "x", ExitCode: 1, StderrTail: strings.Repeat("é", 400)}, `agent "x" exited with status 1: ` + strings.Repeat("é", 148) + "…", nil}, // 300 bytes at most, the mark included
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if tt.is != nil && !errors.Is(tt.err, tt.is) {
				t.Errorf("errors.Is(%v) = false", tt.is)
			}
		})
	}
}

func TestTailUTF8(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "def"},
		{"a€b", 3, "b"},
		{"a€b", 4, "€b"},
		{"bad \xff byte", 20, "bad \uFFFD byte"},
	}
	for _, tt := range tests {
		if got := tailUTF8([]byte(tt.in), tt.n); got != tt.want {
			t.Errorf("tailUTF8(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func FuzzTailUTF8(f *testing.F) {
	f.Add([]byte("a€b\xff"), 3)
	f.Add([]byte(""), 0)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		got := tailUTF8(b, n)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 %q", got)
		}
		if line := lastLine(got); strings.Contains(line, "\n") {
			t.Fatalf("lastLine %q spans lines", line)
		}
	})
}
