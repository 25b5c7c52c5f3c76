package web

import (
	"bytes"
	"html"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// newMarkdown returns the renderer for agent deliverables: CommonMark with
// GitHub tables, strikethrough and task lists; raw HTML is never passed
// through (goldmark's default, not WithUnsafe) and links or images whose
// scheme is not http, https or mailto lose their target (see safeLinks).
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(safeLinks{}, 0))),
	)
}

// renderMarkdown renders agent-produced markdown to HTML that is safe to
// put in a page as is.
func renderMarkdown(md goldmark.Markdown, src string) template.HTML {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		// Conversion of an in-memory string does not fail in practice;
		// show the source escaped if it ever does.
		return template.HTML("<pre>" + template.HTMLEscapeString(src) + "</pre>")
	}
	return template.HTML(buf.String()) //nolint:gosec // goldmark output without raw HTML
}

// safeLinks is an AST transformer that turns links with a disallowed
// target into their text and images into their alt text. Targets are
// checked with character references resolved, as the renderer writes them.
type safeLinks struct{}

func (safeLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var bad []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Link:
			if !SafeURL(html.UnescapeString(string(v.Destination))) {
				bad = append(bad, n)
			}
		case *ast.Image:
			if !SafeURL(html.UnescapeString(string(v.Destination))) {
				bad = append(bad, n)
			}
		case *ast.AutoLink:
			if !SafeURL(html.UnescapeString(string(v.URL(reader.Source())))) {
				bad = append(bad, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range bad {
		parent := n.Parent()
		if parent == nil {
			continue
		}
		if al, ok := n.(*ast.AutoLink); ok {
			parent.ReplaceChild(parent, n, ast.NewString(al.Label(reader.Source())))
			continue
		}
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, n, c)
			c = next
		}
		parent.RemoveChild(parent, n)
	}
}

// SafeURL reports whether a link target may be followed from the viewer:
// a relative reference or fragment, or an absolute http, https or mailto
// URL. As a browser does, ASCII tabs, newlines and spaces are removed
// before reading the scheme ("java\tscript:"), and a prefix before the
// first colon that is not a valid scheme makes the target relative.
func SafeURL(raw string) bool {
	cleaned := strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, raw)
	scheme, _, found := strings.Cut(cleaned, ":")
	if !found || !isScheme(scheme) {
		return true // relative: stays on this origin
	}
	switch strings.ToLower(scheme) {
	case "http", "https", "mailto":
		return true
	}
	return false
}

// isScheme reports whether s is an RFC 3986 scheme: a letter, then
// letters, digits, "+", "-" or ".".
func isScheme(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}
