package chain

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCutAt: a cut text is a valid-UTF-8 prefix of the input (up to
// trailing space) and no longer than asked.
func FuzzCutAt(f *testing.F) {
	f.Add("line one\nline two\nline three", 12)
	f.Add("ünïcödé ünïcödé", 5)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || !utf8.ValidString(s) {
			return
		}
		got := cutAt(s, n)
		if len(s) <= n {
			if got != s {
				t.Fatalf("cutAt changed a short text: %q", got)
			}
			return
		}
		if len(got) > n || !utf8.ValidString(got) || !strings.HasPrefix(s, got) {
			t.Fatalf("cutAt(%q, %d) = %q", s, n, got)
		}
	})
}
