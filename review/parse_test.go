package review

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStepTrailers(t *testing.T) {
	const id = "01M80VFPZ44BAV11Q7FE9R44RF"
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"git commit --trailer", "code: change\n\nUwf-Step: " + id + "@0123456789ab\n", []string{id + "@0123456789ab"}},
		{"-m text with other trailers", "code\n\nbody\n\nSigned-off-by: x\nUwf-Step: " + id + "@abcd\n", []string{id + "@abcd"}},
		{"lower-case key, extra spaces", "code\n\nuwf-step :   " + id + "@abcd  \n", []string{id + "@abcd"}},
		{"squash: one block per message", "one\n\nUwf-Step: A@1111\n\ntwo\n\nUwf-Step: B@2222\n", []string{"A@1111", "B@2222"}},
		{"merge --squash indents", "Squashed commit\n\ncommit 1\n\n    one\n\n    Uwf-Step: A@1111\n", []string{"A@1111"}},
		{"cherry-pick -x line after", "code\n\nUwf-Step: A@1111\n(cherry picked from commit 0123)\n", []string{"A@1111"}},
		{"duplicate once", "code\n\nUwf-Step: A@1111\nUwf-Step: A@1111\n", []string{"A@1111"}},
		{"empty value ignored", "code\n\nUwf-Step:\n", nil},
		{"other keys ignored", "code\n\nUwf-Thread: " + id + "\nUwf-Steps: x\nXUwf-Step: y\n", nil},
		{"no trailer", "just a message", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := StepTrailers(tc.msg); !slices.Equal(got, tc.want) {
				t.Errorf("StepTrailers(%q) = %q, want %q", tc.msg, got, tc.want)
			}
		})
	}
}

func TestParseTrailer(t *testing.T) {
	const id = "01M80VFPZ44BAV11Q7FE9R44RF"
	cases := []struct {
		in      string
		want    trailerRef
		wantErr string
	}{
		{id + "@0123456789AB", trailerRef{Thread: id, Head: "0123456789ab"}, ""},
		{strings.ToLower(id[:8]) + "@abcd", trailerRef{Thread: id[:8], Head: "abcd"}, ""},
		{"E95VDQ8R3WBDR", trailerRef{Alias: "E95VDQ8R3WBDR"}, ""},
		{"e95vdq8r", trailerRef{Alias: "E95VDQ8R"}, ""},
		{"hello world", trailerRef{}, "not a step alias"},
		{"E95", trailerRef{}, "not a step alias"},
		{"ZZZZZZZZZZZZZ", trailerRef{}, "not a step alias"}, // 13 characters, above the 65-bit range
		{id + "@", trailerRef{}, "not a commit id"},
		{id + "@xyz123", trailerRef{}, "not a commit id"},
		{id + "@" + strings.Repeat("a", 41), trailerRef{}, "not a commit id"},
		{"ILOU@abcd", trailerRef{}, "not a thread id"},
		{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ@abcd", trailerRef{}, "not a thread id"}, // ULID overflow
		{"@abcd", trailerRef{}, "not a thread id"},
		{strings.Repeat("A", 300), trailerRef{}, "too long"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseTrailer(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("parseTrailer(%q) = %+v, %v; want error containing %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("parseTrailer(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseLog(t *testing.T) {
	h1, h2 := strings.Repeat("a", 40), strings.Repeat("b", 40)
	out := h1 + "\nAda\n1700000000\nfirst line\n\nUwf-Step: X@1234\n\x00\n" + h2 + "\nBob\n1700000001\n\x00"
	got, err := parseLog([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Commit != h1 || got[0].Subject != "first line" || got[0].Author != "Ada" ||
		got[0].Time.Unix() != 1700000000 || !slices.Equal(got[0].Values, []string{"X@1234"}) ||
		got[1].Commit != h2 || got[1].Subject != "" || got[1].Values != nil {
		t.Errorf("parseLog = %+v", got)
	}
	for _, bad := range []string{"short\nA\n1\nmsg\x00", h1 + "\nA\nnot-a-time\nmsg\x00", h1 + "\x00"} {
		if _, err := parseLog([]byte(bad)); err == nil {
			t.Errorf("parseLog(%q) succeeded, want an error", bad)
		}
	}
}

func FuzzStepTrailers(f *testing.F) {
	for _, s := range []string{"code\n\nUwf-Step: 01M80VFPZ44BAV11Q7FE9R44RF@0123456789ab\n", "Uwf-Step: E95VDQ8R3WBDR", "  uwf-step :x@y\n(cherry picked", "", "Uwf-Step:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		for _, v := range StepTrailers(msg) {
			if v == "" || strings.ContainsAny(v, "\n") || v != strings.TrimSpace(v) {
				t.Fatalf("value %q from %q", v, msg)
			}
			ref, err := parseTrailer(v)
			if err != nil {
				if !utf8.ValidString(err.Error()) && utf8.ValidString(v) {
					t.Fatalf("error for valid input is not UTF-8: %q", err)
				}
				continue
			}
			if (ref.Alias == "") == (ref.Thread == "") {
				t.Fatalf("parseTrailer(%q) = %+v: want exactly one form", v, ref)
			}
			if ref.Thread != "" && (len(ref.Head) < 4 || strings.Trim(ref.Head, "0123456789abcdef") != "") {
				t.Fatalf("parseTrailer(%q) head %q", v, ref.Head)
			}
		}
	})
}

func FuzzParseLog(f *testing.F) {
	f.Add([]byte(strings.Repeat("a", 40) + "\nAda\n1700000000\nmsg\n\nUwf-Step: X@1234\n\x00"))
	f.Add([]byte("\x00\x00\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		commits, err := parseLog(out)
		if err != nil {
			return
		}
		for _, c := range commits {
			if len(c.Commit) != 40 {
				t.Fatalf("commit id %q", c.Commit)
			}
		}
	})
}

func TestMarkdownKeepsFetchedTextInItsPlace(t *testing.T) {
	r := &Report{Range: "main..HEAD", Commits: []Commit{{Short: "abc", Subject: "a | b <details>", NoStep: true,
		Steps: []StepLink{{Trailer: "x`y|z", Error: "bad"}}}},
		Threads: []Thread{{Thread: "T", Task: "line one\n</details><script>", Path: []Step{{Index: 1, Role: "dev<b>", Kind: "step",
			Committed: true, CodeCommits: []string{"abc"}, Agent: "sh `x`", Instruction: "do <this>",
			Output: map[string]any{"a|b": "c|d\ne"}, Deliverable: "```\n</details>\n```"}}}}}
	var b strings.Builder
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| `abc` | a \\| b &lt;details> | **no step**; **unresolved** ``x`y\\|z`` |",
		"> line one\n> &lt;/details>&lt;script>",
		"<b>dev&lt;b&gt;</b>",
		"agent `` sh `x` ``",
		"  > do &lt;this>",
		"| `a\\|b` | c\\|d e |",
		"````markdown\n```\n</details>\n```\n````",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "</details>") != 2 { // the step's own, and the one inside the fenced deliverable
		t.Errorf("markdown has %d </details>:\n%s", strings.Count(md, "</details>"), md)
	}
}
