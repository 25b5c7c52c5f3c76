package gitrepo

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReflogMessage(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "uwf: start thread", "uwf: start thread"},
		{"NUL and newlines", "uwf: a\x00b\nc\r\td", "uwf: a b c d"},
		{"invalid UTF-8", "uwf: \xff", "uwf: \uFFFD"},
		{"long", "uwf: " + strings.Repeat("é", 400), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := reflogMessage(tt.in)
			if tt.want != "" && got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if len(got) > maxReflogMessage || !utf8.ValidString(got) || strings.ContainsAny(got, "\x00\n") {
				t.Fatalf("unusable message (%d bytes): %q", len(got), got)
			}
		})
	}
}
