// Package mangen writes the git-uwf(1) man page as roff.
//
// The COMMANDS and OPTIONS sections are generated from the urfave/cli
// command tree the program runs (root.App), so a command registered later
// shows up without editing anything here; the prose sections (DESCRIPTION,
// EXAMPLES, ENVIRONMENT, FILES, EXIT STATUS, SEE ALSO) are kept in this
// package. It is used by cmd/git-uwf/genman at build time (`make man`) and is
// not linked into git-uwf itself.
package mangen

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Page describes the page being written.
type Page struct {
	Name    string // the page's name, as `man` finds it: "git-uwf"
	Command string // how the program is invoked: "git uwf"
	Version string // goes into the footer; "" leaves it out
}

// Write renders app's command tree and the prose sections as a man page in
// section 1.
func Write(w io.Writer, p Page, app *cli.App) error {
	bw := bufio.NewWriter(w)
	r := &roff{w: bw}
	source := "git-uwf"
	if p.Version != "" {
		source += " " + p.Version
	}
	r.line(fmt.Sprintf(".TH %s 1 \"\" %s \"Git Manual\"", strings.ToUpper(p.Name), quoteArg(source)))
	r.line(".nh") // no hyphenation: command and flag names must not break
	r.line(".ad l")

	r.section("NAME")
	r.text(p.Name + " - " + app.Usage)

	r.section("SYNOPSIS")
	r.line(".nf")
	r.line(bold(p.Command) + " " + globalSynopsis(app) + " " + italic("command") + " [" + italic("arguments") + "]")
	r.line(bold(p.Command) + " " + bold(escape("-h")) + " | " + bold(escape("-V")))
	r.line(bold(p.Command) + " " + italic("command") + " " + bold(escape("-h")))
	r.line(".fi")

	r.section("DESCRIPTION")
	r.prose(description)

	r.section("OPTIONS")
	r.text("Global options are accepted anywhere on the command line before a literal --, also after the command's arguments, as in git.")
	for _, f := range visibleFlags(app.VisibleFlags()) {
		r.line(".TP")
		r.line(flagTerm(f))
		r.text(flagUsage(f))
	}

	r.section("COMMANDS")
	r.text("Each command has a -h flag that prints its arguments and flags; see also the command reference named under SEE ALSO.")
	var commands []*cli.Command
	for _, c := range app.VisibleCommands() {
		if len(c.VisibleCommands()) == 0 {
			commands = append(commands, c)
			continue
		}
		r.subsection(p.Command + " " + c.Name)
		r.text(sentence(c.Usage))
		for _, sub := range c.VisibleCommands() {
			writeCommand(r, p.Command+" "+c.Name, sub)
		}
	}
	if len(commands) > 0 {
		r.subsection("Other commands")
		for _, c := range commands {
			writeCommand(r, p.Command, c)
		}
	}

	for _, s := range sections {
		r.section(s.title)
		r.prose(s.body)
	}
	if r.err != nil {
		return r.err
	}
	return bw.Flush()
}

// writeCommand writes one command (and, depth first, its visible
// subcommands) as a tagged paragraph: its synopsis, its short description
// and, on one line, the flags it takes.
func writeCommand(r *roff, parent string, c *cli.Command) {
	path := parent + " " + c.Name
	r.line(".TP")
	term := bold(escape(path))
	if c.ArgsUsage != "" {
		term += " " + italic(escape(c.ArgsUsage))
	}
	r.line(term)
	desc := sentence(c.Usage)
	if len(c.Aliases) > 0 {
		desc += " Alias: " + strings.Join(c.Aliases, ", ") + "."
	}
	r.text(desc)
	if flags := visibleFlags(c.VisibleFlags()); len(flags) > 0 {
		var names []string
		for _, f := range flags {
			names = append(names, flagSpelling(f, "|"))
		}
		r.line(".br")
		r.line("Flags: " + strings.Join(names, ", ") + ".")
	}
	for _, sub := range c.VisibleCommands() {
		writeCommand(r, path, sub)
	}
}

// visibleFlags leaves out -h/--help, which every command has, and the
// global --format, which the OPTIONS section describes.
func visibleFlags(flags []cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, f := range flags {
		names := f.Names()
		if slices.Contains(names, "help") || slices.Contains(names, "format") {
			continue
		}
		out = append(out, f)
	}
	return out
}

// globalSynopsis writes the global options in brackets.
func globalSynopsis(app *cli.App) string {
	var parts []string
	for _, f := range visibleFlags(app.VisibleFlags()) {
		parts = append(parts, "["+flagSpelling(f, "|")+"]")
	}
	parts = append(parts, "["+bold(escape("--format"))+" "+italic("text")+"|"+italic("json")+"|"+italic("yaml")+"]")
	return strings.Join(parts, " ")
}

// flagTerm is the term of a flag's entry in OPTIONS: every name and the
// value's placeholder.
func flagTerm(f cli.Flag) string { return flagSpelling(f, ", ") }

// flagSpelling writes a flag as "-x<sep>--name VALUE" in roff, short names
// first.
func flagSpelling(f cli.Flag, sep string) string {
	names := slices.Clone(f.Names())
	slices.SortStableFunc(names, func(a, b string) int { return len(a) - len(b) })
	var spelled []string
	for _, n := range names {
		spelled = append(spelled, bold(escape(dashed(n))))
	}
	s := strings.Join(spelled, sep)
	if v := placeholder(f); v != "" {
		s += " " + italic(v)
	}
	return s
}

// placeholder is the name of a flag's value: the word its usage quotes in
// backticks (urfave/cli's convention), else VALUE; "" when the flag takes
// no value.
func placeholder(f cli.Flag) string {
	d, ok := f.(cli.DocGenerationFlag)
	if !ok || !d.TakesValue() {
		return ""
	}
	if _, rest, ok := strings.Cut(d.GetUsage(), "`"); ok {
		if name, _, ok := strings.Cut(rest, "`"); ok && name != "" {
			return name
		}
	}
	return "VALUE"
}

// flagUsage is a flag's usage without urfave/cli's backticks, as a sentence.
func flagUsage(f cli.Flag) string {
	d, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	return sentence(strings.ReplaceAll(d.GetUsage(), "`", ""))
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// sentence capitalises s and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// roff writes lines of roff, remembering the first write error.
type roff struct {
	w   *bufio.Writer
	err error
}

func (r *roff) line(s string) {
	if r.err == nil {
		_, r.err = r.w.WriteString(s + "\n")
	}
}

func (r *roff) section(title string) { r.line(".SH " + quoteArg(title)) }

func (r *roff) subsection(title string) { r.line(".SS " + quoteArg(title)) }

// text writes plain text as one filled line of the current paragraph.
func (r *roff) text(s string) {
	if s != "" {
		r.line(escapeLine(s))
	}
}

// prose writes the small markup the prose sections use: paragraphs
// separated by blank lines; a paragraph whose lines start with two spaces is
// an example shown as is; "term\n: text" is a tagged paragraph; *word* is
// bold.
func (r *roff) prose(src string) {
	for _, para := range strings.Split(strings.Trim(src, "\n"), "\n\n") {
		lines := strings.Split(para, "\n")
		switch {
		case strings.HasPrefix(lines[0], "  "):
			r.line(".PP")
			r.line(".RS 4")
			r.line(".nf")
			for _, l := range lines {
				r.line(escapeLine(strings.TrimPrefix(l, "  ")))
			}
			r.line(".fi")
			r.line(".RE")
		case len(lines) >= 2 && strings.HasPrefix(lines[1], ": "):
			r.line(".TP")
			r.line(inline(lines[0]))
			text := strings.TrimPrefix(lines[1], ": ")
			for _, l := range lines[2:] {
				text += " " + strings.TrimSpace(l)
			}
			r.line(inline(text))
		default:
			r.line(".PP")
			r.line(inline(strings.Join(lines, " ")))
		}
	}
}

// inline escapes s and turns *word* into bold.
func inline(s string) string {
	parts := strings.Split(s, "*")
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString(bold(escape(p)))
		case i%2 == 1: // an unpaired star is literal
			b.WriteString("*" + escape(p))
		default:
			b.WriteString(escape(p))
		}
	}
	return guardLine(b.String())
}

func bold(s string) string   { return `\fB` + s + `\fR` }
func italic(s string) string { return `\fI` + s + `\fR` }

// escape makes text safe inside a roff line: backslashes print as
// themselves, hyphens as hyphen-minus (so flags can be copied) and
// characters outside ASCII as named code points, which every troff reads.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > 0x7f:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeLine escapes a whole line of text.
func escapeLine(s string) string { return guardLine(escape(s)) }

// guardLine keeps a line that starts with a control character (. or ')
// from being read as a request.
func guardLine(s string) string {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		return `\&` + s
	}
	return s
}

// quoteArg quotes a macro argument.
func quoteArg(s string) string {
	return `"` + strings.ReplaceAll(escape(s), `"`, `\(dq`) + `"`
}
