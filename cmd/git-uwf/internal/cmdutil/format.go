package cmdutil

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// Format selects how a command writes its result.
type Format string

// The output formats.
const (
	FormatText Format = "text"
	FormatJSON Format = "json"
	FormatYAML Format = "yaml"
)

// formatFlagName is the name of the --format flag, global and per command.
const formatFlagName = "format"

// ParseFormat parses a --format value; the empty string means text.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "":
		return FormatText, nil
	case FormatText, FormatJSON, FormatYAML:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q: want text, json or yaml", s)
}

// FormatFlag returns a fresh --format flag. The root command defines it
// globally; a command may add its own, which then takes precedence.
func FormatFlag() cli.Flag {
	return &cli.StringFlag{
		Name:  formatFlagName,
		Usage: "output `FORMAT`: text, json or yaml",
		Value: string(FormatText),
	}
}

// FormatOf returns the output format chosen for the running command: the
// command's own --format if given, else the nearest one given on an
// ancestor (the global flag), else the default, text. A bad value is a
// *FlagError.
func FormatOf(c *cli.Context) (Format, error) {
	value := string(FormatText)
	for _, ctx := range c.Lineage() {
		if ctx.Command == nil {
			continue
		}
		if slices.Contains(ctx.LocalFlagNames(), formatFlagName) {
			value = ctx.String(formatFlagName)
			break
		}
	}
	f, err := ParseFormat(value)
	if err != nil {
		return "", &FlagError{Err: fmt.Errorf("--format: %w", err)}
	}
	return f, nil
}

// Print writes v to ios.Out in format f. For json, v is indented by two
// spaces, without HTML escaping, with a trailing newline. For yaml, v is
// first encoded as JSON, so field names and key order match the json output.
// For text, text writes the human form; a nil text falls back to yaml.
// Nothing is written if encoding fails.
func Print(ios *iostreams.IOStreams, f Format, v any, text func(w io.Writer) error) error {
	switch f {
	case FormatText, "":
		if text != nil {
			// Buffered: a tabwriter writes every cell separately, which is
			// one write(2) each on an unbuffered terminal or pipe.
			bw := bufio.NewWriterSize(ios.Out, 64<<10)
			err := text(bw)
			if ferr := bw.Flush(); err == nil && ferr != nil {
				err = ferr
			}
			return err
		}
		return Print(ios, FormatYAML, v, nil)
	case FormatJSON:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("encode json: %w", err)
		}
		_, err := ios.Out.Write(buf.Bytes())
		return err
	case FormatYAML:
		out, err := marshalYAML(v)
		if err != nil {
			return err
		}
		_, err = ios.Out.Write(out)
		return err
	}
	return fmt.Errorf("unknown format %q", string(f))
}

// marshalYAML encodes v as JSON, rebuilds the JSON as a yaml.Node tree
// (keeping object key order) and encodes that with a two-space indent.
func marshalYAML(v any) ([]byte, error) {
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	dec := json.NewDecoder(&js)
	dec.UseNumber()
	node, err := jsonToNode(dec)
	if err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	var out bytes.Buffer
	ye := yaml.NewEncoder(&out)
	ye.SetIndent(2)
	if err := ye.Encode(node); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	if err := ye.Close(); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	return out.Bytes(), nil
}

// jsonToNode reads one JSON value from dec as a yaml.Node.
func jsonToNode(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				ks, ok := key.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", key)
				}
				val, err := jsonToNode(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ks}, val)
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				val, err := jsonToNode(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, val)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(t.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, errors.New("unexpected json token")
}

// Table lays out rows of cells in columns exactly as a text/tabwriter
// created with NewWriter(w, 0, tabwidth, 2, ' ', 0) lays out the same rows
// written as cells joined by tabs, one line each: every cell but the last
// of its row is padded with spaces to the width (in runes) of the widest
// cell of its column, plus two. It is the fast path for long listings: no
// per-cell buffering or formatting. When a cell holds a byte that
// tabwriter treats specially (tab, newline, \v, \f, \r, 0xff), the table
// is written through tabwriter itself.
type Table struct {
	ncol   int
	cells  []string // row after row
	styles map[int]func(string) string
}

// Style decorates the cells of column col (not the first row, the header)
// with fn when
// the table is written, after the layout: fn may add terminal escapes that
// take no room, such as colour.
func (t *Table) Style(col int, fn func(string) string) {
	if t.styles == nil {
		t.styles = map[int]func(string) string{}
	}
	t.styles[col] = fn
}

// NewTable returns a table whose rows have len(header) cells, starting
// with header.
func NewTable(header ...string) *Table {
	t := &Table{ncol: len(header)}
	t.Row(header...)
	return t
}

// NewFields returns a table of two columns without a header: a field name
// and its value on each row, as in the text form of a show command.
func NewFields() *Table { return &Table{ncol: 2} }

// Grow makes room for n more rows.
func (t *Table) Grow(n int) { t.cells = slices.Grow(t.cells, n*t.ncol) }

// Row adds a row. Missing cells are empty; extra cells are joined to the
// last one with tabs (as tabwriter would see them).
func (t *Table) Row(cells ...string) {
	if len(cells) > t.ncol {
		cells = append(slices.Clip(cells[:t.ncol-1]), strings.Join(cells[t.ncol-1:], "\t"))
	}
	t.cells = append(t.cells, cells...)
	for range t.ncol - len(cells) {
		t.cells = append(t.cells, "")
	}
}

// WriteTo writes the table.
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	if t.ncol == 0 {
		return 0, nil
	}
	const padding = 2
	widths := make([]int, t.ncol)
	for i, c := range t.cells {
		col := i % t.ncol
		var class byte
		for j := 0; j < len(c); j++ {
			class |= cellByteClass[c[j]]
		}
		if class&cellSpecial != 0 {
			return t.writeTabwriter(w)
		}
		if col < t.ncol-1 {
			widths[col] = max(widths[col], cellWidth(c, class))
		}
	}
	spaces := strings.Repeat(" ", slices.Max(widths)+padding)
	buf := make([]byte, 0, 32<<10)
	var n int64
	for i, c := range t.cells {
		if style := t.styles[i%t.ncol]; style != nil && i >= t.ncol {
			buf = append(buf, style(c)...)
		} else {
			buf = append(buf, c...)
		}
		if col := i % t.ncol; col < t.ncol-1 {
			buf = append(buf, spaces[:widths[col]+padding-utf8.RuneCountInString(c)]...)
			continue
		}
		buf = append(buf, '\n')
		if len(buf) >= 28<<10 || i == len(t.cells)-1 {
			m, err := w.Write(buf)
			n += int64(m)
			if err != nil {
				return n, err
			}
			buf = buf[:0]
		}
	}
	return n, nil
}

// cellWidth is a cell's width as tabwriter counts it: in runes.
func cellWidth(c string, class byte) int {
	if class&cellNonASCII == 0 {
		return len(c)
	}
	return utf8.RuneCountInString(c)
}

// The bytes of a cell that need a closer look: those text/tabwriter does
// not copy as they are (cell and line ends, its escape byte; and \r, to be
// safe), and those that are not ASCII (their width is counted in runes).
const (
	cellSpecial byte = 1 << iota
	cellNonASCII
)

var cellByteClass = func() (t [256]byte) {
	for c := 0x80; c < 0x100; c++ {
		t[c] = cellNonASCII
	}
	for _, c := range []byte{'\t', '\n', '\v', '\f', '\r', 0xff} {
		t[c] |= cellSpecial
	}
	return t
}()

// writeTabwriter is WriteTo through text/tabwriter.
func (t *Table) writeTabwriter(w io.Writer) (int64, error) {
	cw := &byteCounter{w: w}
	tw := tabwriter.NewWriter(cw, 0, 8, 2, ' ', 0)
	for i := 0; i < len(t.cells); i += t.ncol {
		if _, err := io.WriteString(tw, strings.Join(t.cells[i:i+t.ncol], "\t")+"\n"); err != nil {
			return cw.n, err
		}
	}
	err := tw.Flush()
	return cw.n, err
}

type byteCounter struct {
	w io.Writer
	n int64
}

func (c *byteCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
