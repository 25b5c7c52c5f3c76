package cmdutil

import (
	"bytes"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

func TestTableStyleKeepsLayout(t *testing.T) {
	plain := NewTable("ID", "STATUS", "TASK")
	styled := NewTable("ID", "STATUS", "TASK")
	styled.Style(1, ColorStatus)
	for _, r := range [][]string{{"a", "completed", "x"}, {"bb", "idle", "y"}, {"c", "failed", "z"}} {
		plain.Row(r...)
		styled.Row(r...)
	}
	var p, s bytes.Buffer
	plain.WriteTo(&p)
	styled.WriteTo(&s)
	stripped := strings.NewReplacer("\x1b[32m", "", "\x1b[31m", "", "\x1b[0m", "").Replace(s.String())
	if stripped != p.String() {
		t.Errorf("styled layout differs:\n%s\nvs\n%s", stripped, p.String())
	}
	if !strings.Contains(s.String(), "\x1b[32mcompleted\x1b[0m") || strings.Contains(s.String(), "\x1b[32mSTATUS") {
		t.Errorf("colour missing or on the header: %q", s.String())
	}
}

func TestStatusColorer(t *testing.T) {
	tests := []struct {
		name         string
		tty, noColor bool
		want         string
	}{
		{"terminal", true, false, "\x1b[31mfailed\x1b[0m"},
		{"NO_COLOR", true, true, "failed"},
		{"piped", false, false, "failed"},
	}
	for _, tt := range tests {
		ios, _, _, _ := iostreams.Test()
		ios.SetStdoutTTY(tt.tty)
		ios.SetNoColor(tt.noColor)
		if got := StatusColorer(ios)("failed"); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	if ColorStatus("whatever") != "whatever" {
		t.Error("unknown status coloured")
	}
}
