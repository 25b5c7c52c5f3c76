// Package text holds the string helpers every layer shares for showing
// free text (messages, prompts, errors, fetched data) in a bounded space:
// on one line and cut to a width, without splitting a character.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis marks where Clip, ClipBytes and FirstLine cut text.
const Ellipsis = "…"

// OneLine puts s on one line: runs of white space and control characters
// (newlines and NUL included) become single spaces, and the ends are
// trimmed.
func OneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
}

// Clip cuts s to at most n runes; when it cuts, the last of the n runes is
// Ellipsis. n must be at least 1.
func Clip(s string, n int) string {
	if len(s) <= n { // at most n bytes, so at most n runes
		return s
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + Ellipsis
}

// ClipBytes cuts s to at most n bytes, counting the Ellipsis that marks the
// cut, without splitting a UTF-8 sequence. n must be at least
// len(Ellipsis).
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len(Ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + Ellipsis
}

// FirstLine returns the first line of s with the white space around it
// trimmed (leading blank lines are skipped), cut to at most max runes as
// Clip does.
func FirstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return Clip(s, max)
}

// Excerpt returns the start of s for a message that quotes it: invalid
// UTF-8 replaced with U+FFFD, on one line as OneLine puts it, and cut to
// at most 200 bytes as ClipBytes cuts. When nothing of s is left, it
// returns empty, which says so in the caller's words.
func Excerpt(s, empty string) string {
	s = OneLine(strings.ToValidUTF8(s, "\uFFFD"))
	if s == "" {
		return empty
	}
	return ClipBytes(s, 200)
}
