package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"plain", errors.New("boom"), 1},
		{"silent", ErrSilent, 1},
		{"flag", &FlagError{Err: errors.New("bad flag")}, 2},
		{"wrapped flag", fmt.Errorf("parse: %w", FlagErrorf("bad %s", "x")), 2},
		{"cancelled", ErrCancelled, 130},
		{"context canceled", fmt.Errorf("run agent: %w", context.Canceled), 130},
		{"deadline is a failure", context.DeadlineExceeded, 1},
		{"exit code", &ExitError{Code: 75, Err: errors.New("lock held")}, 75},
		{"silent exit code", fmt.Errorf("has: %w", &ExitError{Code: 1}), 1},
		{"exit code wins over cancel", &ExitError{Code: 3, Err: context.Canceled}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExitCode(tt.err); got != tt.want {
				t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

func TestPrintError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"plain", fmt.Errorf("read step %s: %w", "abc", errors.New("not found")), "error: read step abc: not found\n"},
		{"silent", fmt.Errorf("x: %w", ErrSilent), ""},
		{"cancelled", ErrCancelled, ""},
		{"context canceled", context.Canceled, ""},
		{"exit without message", &ExitError{Code: 1}, ""},
		{"exit with message", &ExitError{Code: 75, Err: errors.New("lock busy")}, "error: lock busy\n"},
		{"flag error", FlagErrorf("unknown flag --x"), "error: unknown flag --x; run 'git uwf -h' for usage\n"},
		{"flag error with command", &FlagError{Err: errors.New("missing name"), Command: "thread start"},
			"error: missing name; run 'git uwf thread start -h' for usage\n"},
		{"multi-line", errors.New("workflow invalid:\n  roles.a: missing\n  roles.b: missing\n"),
			"error: workflow invalid:\n  roles.a: missing\n  roles.b: missing\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			PrintError(&buf, tt.err)
			if buf.String() != tt.want {
				t.Errorf("got %q, want %q", buf.String(), tt.want)
			}
		})
	}
}
