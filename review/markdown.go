package review

import (
	"fmt"
	"github.com/git-uwf/git-uwf/internal/text"
	"io"
	"maps"
	"slices"
	"strings"
)

// WriteMarkdown writes the report as markdown for a pull-request
// description or comment: a table of the commits, then one section per
// thread with its path and a collapsible block per step that committed,
// then the problems.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	s := r.Summary
	fmt.Fprintf(&b, "## Story of `%s`\n\n", r.Range)
	fmt.Fprintf(&b, "%s, %d with a step, %d without; %s in %s.\n\n",
		plural(s.Commits, "commit"), s.WithStep, s.WithoutStep, plural(s.Steps, "step"), plural(s.Threads, "thread"))
	if len(r.Commits) > 0 {
		b.WriteString("| commit | subject | step |\n|---|---|---|\n")
		for _, c := range r.Commits {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.Short, cell(c.Subject), stepCell(c))
		}
		b.WriteString("\n")
	}
	for _, t := range r.Threads {
		writeThread(&b, t)
	}
	if len(r.Problems) > 0 {
		b.WriteString("### Problems\n\n")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "- %s\n", inline(p.String()))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// stepCell names the steps of a commit for the commit table (cell-safe).
func stepCell(c Commit) string {
	if len(c.Steps) == 0 {
		return "**no step**"
	}
	var parts []string
	for _, l := range c.Steps {
		if !l.Resolved() {
			parts = append(parts, "**unresolved** "+tableCode(l.Trailer))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s step %d · %s (`%s`)", shortThread(l.Thread), l.Step, cell(l.Role), shortAlias(l.Alias)))
	}
	if c.NoStep {
		parts = append([]string{"**no step**"}, parts...)
	}
	return strings.Join(parts, "; ")
}

func writeThread(b *strings.Builder, t Thread) {
	fmt.Fprintf(b, "### Thread `%s` · %s · %s\n\n", t.Thread, orDash(t.Workflow), t.Status)
	for l := range strings.SplitSeq(strings.TrimRight(t.Task, "\n"), "\n") {
		fmt.Fprintf(b, "> %s\n", quoteLine(l))
	}
	for _, n := range t.NamedAs {
		fmt.Fprintf(b, "\nThe trailers name thread `%s`; a sync kept these steps on this line, a fork of it.\n", n)
	}
	b.WriteString("\nPath: ")
	for i, st := range t.Path {
		if i > 0 {
			b.WriteString(" → ")
		}
		label := fmt.Sprintf("%d %s", st.Index, orDash(st.Role))
		if st.Kind == "cancel" {
			label = fmt.Sprintf("%d cancelled", st.Index)
		} else if st.Status != "" {
			label += " (" + st.Status + ")"
		}
		if st.Committed {
			label = "**" + label + "** ✎"
		}
		b.WriteString(inline(label))
	}
	if len(t.Path) == 0 {
		b.WriteString("no step yet")
	}
	b.WriteString("\n\n")
	for _, a := range t.FailedAttempts {
		fmt.Fprintf(b, "- failed attempt after step %d: %s by %s%s: %s\n", a.After, inline(orDash(a.Role)), code(a.Agent), phase(a.Phase), inline(a.Error))
	}
	for _, f := range t.Forks {
		fmt.Fprintf(b, "- other line `%s`: %s, %d shared with this one\n", f.Thread, plural(f.Steps, "step"), f.Shared)
	}
	if len(t.FailedAttempts)+len(t.Forks) > 0 {
		b.WriteString("\n")
	}
	for _, st := range t.Path {
		if st.Committed {
			writeStep(b, st)
		}
	}
}

func writeStep(b *strings.Builder, st Step) {
	shorts := make([]string, len(st.CodeCommits))
	for i, c := range st.CodeCommits {
		shorts[i] = "<code>" + shortID(c) + "</code>"
	}
	fmt.Fprintf(b, "<details><summary>Step %d · <b>%s</b> · %s · <code>%s</code> → %s</summary>\n\n",
		st.Index, html(st.Role), html(orDash(st.Status)), st.Short, strings.Join(shorts, ", "))
	fmt.Fprintf(b, "- step `%s`, commit `%s`, agent %s", st.Alias, shortID(st.Commit), code(st.Agent))
	if st.DurationMs > 0 {
		fmt.Fprintf(b, ", %.1f s", float64(st.DurationMs)/1000)
	}
	b.WriteString("\n")
	if st.Instruction != "" {
		b.WriteString("- instruction:\n\n")
		for l := range strings.SplitSeq(strings.TrimRight(st.Instruction, "\n"), "\n") {
			fmt.Fprintf(b, "  > %s\n", quoteLine(l))
		}
		b.WriteString("\n")
	}
	fields := slices.Sorted(maps.Keys(st.Output))
	if len(fields) > 0 {
		b.WriteString("| field | value |\n|---|---|\n")
		for _, k := range fields {
			fmt.Fprintf(b, "| %s | %s |\n", tableCode(k), cell(text.Clip(fmt.Sprint(st.Output[k]), 300)))
		}
		b.WriteString("\n")
	}
	if body := strings.TrimSpace(st.Deliverable); body != "" {
		fence := "```"
		for strings.Contains(body, fence) {
			fence += "`"
		}
		fmt.Fprintf(b, "%smarkdown\n%s\n%s\n\n", fence, body, fence)
	}
	b.WriteString("</details>\n\n")
}

func phase(p string) string {
	if p == "" {
		return ""
	}
	return " (" + inline(p) + ")"
}

// tableCode is code for a table cell: pipes escaped, as GFM tables want
// even inside code spans.
func tableCode(s string) string {
	return code(strings.ReplaceAll(s, "|", `\|`))
}

// code renders text from the repository (fetched data) as inline code that
// cannot close itself early or break the line.
func code(s string) string {
	s = text.OneLine(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// quoteLine keeps a line of a blockquote from opening HTML (a task or an
// instruction may hold anything).
func quoteLine(s string) string {
	return strings.ReplaceAll(s, "<", "&lt;")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func shortThread(id string) string {
	if len(id) > 10 {
		return "`" + id[:10] + "…`"
	}
	return "`" + id + "`"
}

// cell makes text safe in a table cell: one line, pipes escaped.
func cell(s string) string {
	return strings.ReplaceAll(inline(s), "|", `\|`)
}

// inline makes text one line and keeps it from opening HTML.
func inline(s string) string {
	return strings.ReplaceAll(text.OneLine(s), "<", "&lt;")
}

// html escapes text for the inside of an HTML element.
func html(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(text.OneLine(s))
}
