package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"  two\n\tlines \r\n", "two lines"},
		{"nul\x00inside\x1b[31m", "nul inside [31m"},
		{"a \u00a0 b", "a b"},
	}
	for _, tt := range tests {
		if got := OneLine(tt.in); got != tt.want {
			t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 5, "short"},
		{"longer", 5, "long…"},
		{"ééééé", 5, "ééééé"}, // 10 bytes, 5 runes: not cut
		{"éééééé", 5, "éééé…"},
		{"日本語のテキスト", 4, "日本語…"},
		{"ab", 1, "…"},
	}
	for _, tt := range tests {
		got := Clip(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if c := utf8.RuneCountInString(got); c > tt.n {
			t.Errorf("Clip(%q, %d) has %d runes", tt.in, tt.n, c)
		}
	}
}

func TestClipBytes(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 5, "short"},
		{"longer text", 8, "longe…"},
		{"aééé", 5, "a…"}, // the first é would be split: it goes whole
		{"aééé", 6, "aé…"},
		{"ééé", 6, "ééé"},
	}
	for _, tt := range tests {
		got := ClipBytes(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("ClipBytes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if len(got) > tt.n || !utf8.ValidString(got) {
			t.Errorf("ClipBytes(%q, %d) = %q: %d bytes, valid %v", tt.in, tt.n, got, len(got), utf8.ValidString(got))
		}
	}
}

func TestFirstLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"", 10, ""},
		{"\n\n  first  \nsecond", 10, "first"},
		{"error: boom\n  at line 3\n  ^", 100, "error: boom"},
		{strings.Repeat("x", 20) + "\nmore", 10, strings.Repeat("x", 9) + "…"},
	}
	for _, tt := range tests {
		if got := FirstLine(tt.in, tt.max); got != tt.want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes
	tests := []struct {
		in, want string
	}{
		{"", "(none)"},
		{" \n\t\x00 ", "(none)"},
		{"HTTP 502\n\n<html>\r\n bad gateway</html>\n", "HTTP 502 <html> bad gateway</html>"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{long, strings.Repeat("é", 98) + Ellipsis}, // 196 + 3 bytes: the 99th é would pass 200
	}
	for _, tt := range tests {
		got := Excerpt(tt.in, "(none)")
		if got != tt.want {
			t.Errorf("Excerpt(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) > 200 || !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r") {
			t.Errorf("Excerpt(%q) = %q: %d bytes, valid %v", tt.in, got, len(got), utf8.ValidString(got))
		}
	}
}
