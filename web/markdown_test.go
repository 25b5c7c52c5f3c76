package web

import (
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

func TestSafeURL(t *testing.T) {
	tests := []struct {
		url  string
		safe bool
	}{
		{"https://example.com/x", true},
		{"http://example.com", true},
		{"mailto:a@b.c", true},
		{"/relative/path", true},
		{"relative.md", true},
		{"#anchor", true},
		{"?q=1", true},
		{"", true},
		{"//example.com/x", true},
		{"javascript:alert(1)", false},
		{"JavaScript:alert(1)", false},
		{"java\tscript:alert(1)", false},
		{" javascript:alert(1)", false},
		{"java\x00script:alert(1)", false},
		{"vbscript:msgbox", false},
		{"data:text/html,<script>", false},
		{"file:///etc/passwd", false},
		{"a/b:c", true},
	}
	for _, tt := range tests {
		if got := SafeURL(tt.url); got != tt.safe {
			t.Errorf("SafeURL(%q) = %v, want %v", tt.url, got, tt.safe)
		}
	}
}

func TestRenderMarkdownInert(t *testing.T) {
	md := newMarkdown()
	tests := []struct {
		name    string
		src     string
		want    []string
		notWant []string
	}{
		{"script block", "<script>alert(1)</script>", []string{"raw HTML omitted"}, []string{"<script"}},
		{"inline html", "hi <img src=x onerror=alert(1)> there", []string{"hi", "there"}, []string{"<img", "onerror"}},
		{"javascript link", "[x](javascript:alert(1))", []string{"x"}, []string{"href", "javascript"}},
		{"javascript link with entity", "[x](jav&#x09;ascript:alert(1))", []string{"x"}, []string{"href"}},
		{"javascript autolink", "<javascript:alert(1)>", nil, []string{"href"}},
		{"data image", "![a](data:text/html,x)", []string{"a"}, []string{"<img"}},
		{"safe link kept", "[x](https://example.com)", []string{`<a href="https://example.com">x</a>`}, nil},
		{"safe image kept", "![pic](img.png)", []string{`<img src="img.png" alt="pic">`}, nil},
		{"nested emphasis kept in dropped link", "[**bold**](javascript:x)", []string{"<strong>bold</strong>"}, []string{"href"}},
		{"table", "|a|b|\n|-|-|\n|1|2|", []string{"<table>"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(renderMarkdown(md, tt.src))
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q: %s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(strings.ToLower(out), w) {
					t.Errorf("output contains %q: %s", w, out)
				}
			}
		})
	}
}

// FuzzRenderMarkdown checks that no input yields markup that runs code:
// no script or event-handler attributes, and no link or image target with
// a scheme other than http, https or mailto.
func FuzzRenderMarkdown(f *testing.F) {
	for _, seed := range []string{"# h\n\n[a](b)", "<script>x</script>", "[x](javascript:y)", "<img src=x onerror=y>",
		"![a](data:x)", "<javascript:x>", "[a]: javascript:x\n\n[b][a]", "`<script>`", "<a href=\"javascript:x\">y</a>"} {
		f.Add(seed)
	}
	md := newMarkdown()
	f.Fuzz(func(t *testing.T, src string) {
		out := string(renderMarkdown(md, src))
		if problem := activeMarkup(out); problem != "" {
			t.Fatalf("%s: %q → %q", problem, src, out)
		}
	})
}

// activeMarkup parses rendered HTML and describes the first thing in it
// that could run code or leave the page ("" when there is none).
func activeMarkup(out string) string {
	z := xhtml.NewTokenizer(strings.NewReader(out))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return ""
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "iframe", "object", "embed", "style", "link", "meta", "base", "form":
				return "element " + tok.Data
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") {
					return "event handler " + a.Key
				}
				if (a.Key == "href" || a.Key == "src") && !SafeURL(a.Val) {
					return "unsafe " + a.Key + " " + a.Val
				}
			}
		}
	}
}
