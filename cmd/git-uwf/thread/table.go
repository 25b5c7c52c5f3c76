package thread

import (
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// table lays out rows of cells as tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
// does when each cell but a row's last ends in a tab, without a
// tabwriter's byte-by-byte scanning. Rows of different lengths, or cells
// holding a byte a tabwriter treats specially, go through a tabwriter, so
// the output is always the same.
type table struct {
	rows    [][]string
	special bool
}

func (t *table) add(cells ...string) {
	if len(t.rows) > 0 && len(cells) != len(t.rows[0]) {
		t.special = true
	}
	for _, c := range cells {
		for i := 0; i < len(c); i++ {
			switch c[i] {
			case '\t', '\n', '\v', '\f', '\r', tabwriter.Escape:
				t.special = true
			}
		}
	}
	t.rows = append(t.rows, cells)
}

func (t *table) write(w io.Writer) error {
	if t.special {
		return t.writeTabwriter(w)
	}
	if len(t.rows) == 0 {
		return nil
	}
	// All rows have the same cells, so every column is one block: its
	// width is its widest cell (in runes) plus the padding of 2. The last
	// cell of a row is in no column and is not padded.
	n := len(t.rows[0])
	widths := make([]int, n)
	size := 0
	for _, r := range t.rows {
		for i, c := range r[:n-1] {
			widths[i] = max(widths[i], utf8.RuneCountInString(c)+2)
		}
		size += len(r[n-1]) + 1
	}
	for _, w := range widths {
		size += w * len(t.rows)
	}
	buf := make([]byte, 0, size)
	for _, r := range t.rows {
		for i, c := range r[:n-1] {
			buf = append(buf, c...)
			for pad := widths[i] - utf8.RuneCountInString(c); pad > 0; pad-- {
				buf = append(buf, ' ')
			}
		}
		buf = append(buf, r[n-1]...)
		buf = append(buf, '\n')
	}
	_, err := w.Write(buf)
	return err
}

func (t *table) writeTabwriter(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	for _, r := range t.rows {
		if _, err := io.WriteString(tw, strings.Join(r, "\t")+"\n"); err != nil {
			return err
		}
	}
	return tw.Flush()
}
