package agentkit

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Redaction counts the secrets of one kind that [Redactor.Redact] replaced.
type Redaction struct {
	Kind  string
	Count int
}

// Redactor replaces secrets (API keys, tokens, passwords, private keys) in
// text before it is written to git. A secret becomes "[REDACTED:<kind>]"; a
// password inside a URL becomes "[REDACTED]" and keeps the URL readable.
//
// Built-in kinds: private-key, url-credentials, aws-access-key, github-token,
// anthropic-key, openai-key, slack-token, google-api-key, bearer-token,
// basic-auth and secret-assignment (a long value assigned to a key named
// like api_key, secret, password or token). Extra patterns given to
// [NewRedactor] use the kind "custom".
//
// Redaction is idempotent: redacting already redacted text changes nothing,
// because text inside existing "[REDACTED…]" markers is never matched.
// A Redactor is safe for concurrent use.
type Redactor struct {
	rules  []redactRule
	marker func() *regexp.Regexp
}

// redactRule is one kind of secret. The secret is submatch group of re
// (0 = the whole match); keep, when set, rejects look-alikes.
type redactRule struct {
	kind string
	// re returns the compiled pattern. The built-in patterns are compiled
	// on first use: most texts hold none of a rule's hints, and compiling
	// them all costs more than redacting a step.
	re          func() *regexp.Regexp
	group       int
	keep        func(secret string) bool
	replacement string
	// hints are substrings (lower case) at least one of which any match
	// contains; a text with none of them is not scanned by re at all.
	hints []string
	// multiline rules may match across lines; the others are only run on
	// the lines that contain a hint.
	multiline bool
}

// maxRedactPasses bounds the passes Redact makes until nothing changes.
const maxRedactPasses = 4

// NewRedactor returns a Redactor with the built-in rules plus extraPatterns
// (Go regular expressions; the whole match is replaced). A pattern that does
// not compile or that can match the empty string is an error.
func NewRedactor(extraPatterns []string) (*Redactor, error) {
	r := &Redactor{marker: lazyRegexp(`\[REDACTED(?::[A-Za-z0-9_-]+)?\]`)}
	add := func(kind, pattern string, group int, keep func(string) bool, hints ...string) {
		r.rules = append(r.rules, redactRule{
			kind: kind, re: lazyRegexp(pattern), group: group, keep: keep,
			replacement: "[REDACTED:" + kind + "]", hints: hints,
		})
	}
	add("private-key", `-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\z)`, 0, nil, "-----begin")
	r.rules[len(r.rules)-1].multiline = true
	add("url-credentials", `\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\[\]]+:([^\s/@]+)@`, 1, nil, "://")
	r.rules[len(r.rules)-1].replacement = "[REDACTED]"
	// Key prefixes match in any case: a key pasted in lower case (or
	// upper case) is still a key. keyLike then tells random key material
	// from words that happen to follow such a prefix.
	add("aws-access-key", `(?i)\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`, 0, hasDigit, "akia", "asia", "abia", "acca")
	add("github-token", `(?i)\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b`, 0, nil, "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")
	add("anthropic-key", `(?i)\bsk-ant-[A-Za-z0-9_\-]{20,}`, 0, keyLike, "sk-ant-")
	add("openai-key", `(?i)\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}`, 0, keyLike, "sk-")
	add("slack-token", `(?i)\bxox[abprse]-[A-Za-z0-9\-]{10,}`, 0, hasDigit, "xox")
	add("google-api-key", `(?i)\bAIza[0-9A-Za-z_\-]{35}`, 0, keyLike, "aiza")
	add("bearer-token", `(?i)\bauthorization["']?\s*[:=]\s*["']?(?:bearer|token)\s+([^\s"',;]+)`, 1, nil, "authorization")
	add("basic-auth", `(?i)\bauthorization["']?\s*[:=]\s*["']?basic\s+([A-Za-z0-9+/=]{8,})`, 1, nil, "authorization")
	add("bearer-token", `(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)`, 1, hasDigit, "bearer")
	// Only the value (group 1) is replaced, so the pattern starts at the
	// keyword itself: a leading "any name characters" class would make the
	// scan quadratic-looking on long identifier-like runs.
	add("secret-assignment", `(?i)(?:api[_.\-]?key|(?:secret|access|private)[_.\-]?key|secret|passw(?:or)?d|pwd|token|credentials?)["']?\s*(?::=|=>|[:=])\s*["']?([^\s"'<>,;()\[\]{}]{12,})`, 1, plausibleSecret,
		"key", "secret", "passw", "pwd", "token", "credential")
	for i, p := range extraPatterns {
		if p == "" {
			return nil, fmt.Errorf("redact pattern %d: empty pattern", i)
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("redact pattern %d %q: %w", i, p, err)
		}
		if matchesEmpty(re) {
			return nil, fmt.Errorf("redact pattern %d %q: can match the empty string", i, p)
		}
		r.rules = append(r.rules, redactRule{kind: "custom", re: func() *regexp.Regexp { return re }, replacement: "[REDACTED:custom]", multiline: true})
	}
	return r, nil
}

// lazyRegexp returns a function that compiles pattern, a constant that is
// known to compile, on its first call.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// matchesEmpty reports whether re yields an empty match on a few probes.
func matchesEmpty(re *regexp.Regexp) bool {
	for _, probe := range []string{"", "a b", "-\n9"} {
		for _, m := range re.FindAllStringIndex(probe, -1) {
			if m[0] == m[1] {
				return true
			}
		}
	}
	return false
}

// mixedCase accepts random-looking keys: upper- and lower-case letters and
// digits all present after the prefix.
func mixedCase(s string) bool {
	var upper, lower, digit bool
	for _, c := range s {
		switch {
		case unicode.IsUpper(c):
			upper = true
		case unicode.IsLower(c):
			lower = true
		case unicode.IsDigit(c):
			digit = true
		}
	}
	return upper && lower && digit
}

// keyLike accepts random-looking key material: upper- and lower-case
// letters and digits all present (keys as issued), or, for a key whose
// case was changed, letters and digits that alternate at least
// minKeyAlternations times in its longest run of letters and digits. Words
// and version numbers after a key prefix ("sk-learn-compatible",
// "sk-2024-roadmap-notes") alternate far less.
func keyLike(s string) bool {
	if mixedCase(s) {
		return true
	}
	longest, run := "", 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isASCIIAlnum(s[i]) {
			run++
			continue
		}
		if run > len(longest) {
			longest = s[i-run : i]
		}
		run = 0
	}
	alternations := 0
	for i := 1; i < len(longest); i++ {
		if isASCIIDigit(longest[i]) != isASCIIDigit(longest[i-1]) {
			alternations++
		}
	}
	return alternations >= minKeyAlternations
}

// minKeyAlternations is how often a case-changed key must switch between
// letters and digits. A random lower-case key of 20 letters and digits
// switches about eight times on average, and real keys are longer (40 to
// 100 characters), while a word, or a word next to a version number,
// switches at most once or twice.
const minKeyAlternations = 4

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

func isASCIIAlnum(c byte) bool {
	return isASCIIDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
}

// plausibleSecret rejects placeholders and ordinary words in assignments.
func plausibleSecret(s string) bool {
	if strings.ContainsAny(s[:1], "$%<{") {
		return false
	}
	var upper, lower, digit, letter bool
	for _, c := range s {
		switch {
		case unicode.IsUpper(c):
			upper, letter = true, true
		case unicode.IsLower(c):
			lower, letter = true, true
		case unicode.IsDigit(c):
			digit = true
		}
	}
	return (digit && letter) || (upper && lower) || len(s) >= 32
}

// Redact returns s with every secret replaced, and how many of each kind
// were found (sorted by kind; nil when none).
func (r *Redactor) Redact(s string) (string, []Redaction) {
	counts := map[string]int{}
	for pass := 0; pass < maxRedactPasses; pass++ {
		changed := false
		lower := asciiLower(s)
		for _, rule := range r.rules {
			if !rule.mayMatch(lower) {
				continue
			}
			var n int
			if rule.multiline {
				s, n = r.apply(s, rule)
			} else {
				s, n = r.applyByLine(s, lower, rule)
			}
			if n > 0 {
				lower = asciiLower(s)
				counts[rule.kind] += n
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return s, redactionList(counts)
}

// mayMatch reports whether the lower-cased text contains one of the rule's
// hints (always true for rules without hints).
func (rule redactRule) mayMatch(lower string) bool {
	if len(rule.hints) == 0 {
		return true
	}
	for _, h := range rule.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// applyByLine runs a single-line rule only on the lines whose lower-cased
// text holds one of its hints.
func (r *Redactor) applyByLine(s, lower string, rule redactRule) (string, int) {
	var b strings.Builder
	total, copied := 0, 0
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		if rule.mayMatch(lower[start:end]) {
			if out, n := r.apply(s[start:end], rule); n > 0 {
				b.WriteString(s[copied:start])
				b.WriteString(out)
				copied = end
				total += n
			}
		}
		start = end + 1
	}
	if total == 0 {
		return s, 0
	}
	b.WriteString(s[copied:])
	return b.String(), total
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// apply replaces the secrets one rule finds, skipping matches that touch an
// existing redaction marker.
func (r *Redactor) apply(s string, rule redactRule) (string, int) {
	matches := rule.re().FindAllStringSubmatchIndex(s, -1)
	if len(matches) == 0 {
		return s, 0
	}
	protected := r.marker().FindAllStringIndex(s, -1)
	var b strings.Builder
	last, n, p := 0, 0, 0
	for _, m := range matches {
		// Matches and markers are both in text order: skip markers that
		// end before this match.
		for p < len(protected) && protected[p][1] <= m[0] {
			p++
		}
		overlapsMarker := p < len(protected) && protected[p][0] < m[1]
		start, end := m[2*rule.group], m[2*rule.group+1]
		if start < 0 || start == end || start < last || overlapsMarker {
			continue
		}
		if rule.keep != nil && !rule.keep(s[start:end]) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(rule.replacement)
		last = end
		n++
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

func redactionList(counts map[string]int) []Redaction {
	if len(counts) == 0 {
		return nil
	}
	out := make([]Redaction, 0, len(counts))
	for k, n := range counts {
		out = append(out, Redaction{Kind: k, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out
}

// RedactValue redacts every string inside a decoded JSON value (maps,
// slices, strings; map keys are left alone) and returns a redacted copy; v
// itself is not modified. Other values are returned as they are.
func (r *Redactor) RedactValue(v any) (any, []Redaction) {
	counts := map[string]int{}
	out := r.redactValue(v, counts, 0)
	return out, redactionList(counts)
}

// maxRedactDepth bounds recursion into nested values.
const maxRedactDepth = 10_000

func (r *Redactor) redactValue(v any, counts map[string]int, depth int) any {
	if depth > maxRedactDepth {
		return v
	}
	switch x := v.(type) {
	case string:
		s, found := r.Redact(x)
		for _, f := range found {
			counts[f.Kind] += f.Count
		}
		return s
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			out[k] = r.redactValue(item, counts, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = r.redactValue(item, counts, depth+1)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(x))
		for k, item := range x {
			out[k] = r.redactValue(item, counts, depth+1).(string)
		}
		return out
	case []string:
		out := make([]string, len(x))
		for i, item := range x {
			out[i] = r.redactValue(item, counts, depth+1).(string)
		}
		return out
	}
	return v
}
