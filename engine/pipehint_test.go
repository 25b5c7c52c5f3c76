package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestWithPipeHint(t *testing.T) {
	base := errors.New("agent printed no step")
	tests := []struct {
		name   string
		stdout string
		hint   bool
	}{
		{"frontmatter deliverable", "---\n$status: done\n---\nhello\n", true},
		{"after blank lines, CRLF", "\r\n---\r\n$status: done\r\n---\r\nhi", true},
		{"empty frontmatter", "---\n---\nbody", true},
		{"plain text", "hello world\n", false},
		{"a horizontal rule only", "text\n---\nmore", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := withPipeHint(base, []byte(tt.stdout), []string{"sh", "my agent.sh"})
			if !errors.Is(err, base) {
				t.Fatalf("the original error is lost: %v", err)
			}
			got := strings.Contains(err.Error(), "git uwf agent pipe -- sh ")
			if got != tt.hint {
				t.Errorf("hint = %v, want %v: %v", got, tt.hint, err)
			}
			if tt.hint && !strings.Contains(err.Error(), `'my agent.sh'`) {
				t.Errorf("the command is not quoted for the shell: %v", err)
			}
		})
	}
}
