package graph

import (
	"fmt"
	"html"
	"strings"

	"github.com/git-uwf/git-uwf/internal/text"
	"github.com/git-uwf/git-uwf/moderator"
)

// SVG layout constants, in SVG user units.
const (
	svgNodeW   = 150
	svgNodeH   = 36
	svgColW    = 190
	svgRowH    = 96
	svgMargin  = 30
	svgMaxText = 22
)

// SVG draws g as a standalone SVG document fragment (an <svg> element):
// nodes in layers by their distance from $START, forward edges straight,
// back edges and loops curved to the right. It uses presentation attributes
// only (no style elements or attributes) so a strict Content-Security-Policy
// allows it, and every name is escaped.
func SVG(g Graph) string {
	layer := layers(g)
	rows := map[int][]int{} // layer → node indexes
	maxLayer, maxRow := 0, 1
	for i := range g.Nodes {
		l := layer[g.Nodes[i].ID]
		rows[l] = append(rows[l], i)
		maxLayer = max(maxLayer, l)
		maxRow = max(maxRow, len(rows[l]))
	}
	type point struct{ x, y int }
	pos := make(map[string]point, len(g.Nodes))
	width := maxRow*svgColW + 2*svgMargin + 120 // room for back edges on the right
	height := (maxLayer+1)*svgRowH + 2*svgMargin - (svgRowH - svgNodeH)
	for l := 0; l <= maxLayer; l++ {
		row := rows[l]
		offset := (maxRow - len(row)) * svgColW / 2
		for j, i := range row {
			pos[g.Nodes[i].ID] = point{svgMargin + offset + j*svgColW + svgColW/2, svgMargin + l*svgRowH}
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" class="wfgraph" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="workflow graph">`,
		width, height, width, height)
	sb.WriteString(`<defs>`)
	sb.WriteString(`<marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#6b7280"/></marker>`)
	sb.WriteString(`<marker id="arrow-taken" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="12" markerHeight="12" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#15803d"/></marker>`)
	sb.WriteString(`</defs>`)
	backs := 0
	for _, e := range g.Edges {
		a, okA := pos[e.From]
		b, okB := pos[e.To]
		if !okA || !okB {
			continue
		}
		stroke, sw, marker := "#9ca3af", "1.5", "arrow"
		if e.Taken > 0 {
			stroke, sw, marker = "#15803d", fmt.Sprint(min(2+e.Taken, 6)), "arrow-taken"
		}
		var d string
		var lx, ly int
		switch {
		case e.From == e.To:
			x, y := a.x+svgNodeW/2, a.y+svgNodeH/2
			d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x, y-8, x+50, y-40, x+50, y+40, x, y+8)
			lx, ly = x+48, y
		case layer[e.To] > layer[e.From]:
			x1, y1, x2, y2 := a.x, a.y+svgNodeH, b.x, b.y
			d = fmt.Sprintf("M%d,%d L%d,%d", x1, y1, x2, y2)
			lx, ly = (x1+x2)/2+4, (y1+y2)/2
		default:
			backs++
			x1, y1, x2, y2 := a.x+svgNodeW/2, a.y+svgNodeH/2, b.x+svgNodeW/2, b.y+svgNodeH/2
			cx := max(x1, x2) + 40 + 18*backs
			d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, cx, y1, cx, y2, x2, y2)
			lx, ly = cx-20, (y1+y2)/2
		}
		fmt.Fprintf(&sb, `<path d="%s" fill="none" stroke="%s" stroke-width="%s" marker-end="url(#%s)"/>`, d, stroke, sw, marker)
		if label := edgeText(e); label != "" {
			fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="11" fill="#374151" font-family="sans-serif">%s</text>`, lx, ly, esc(text.Clip(label, svgMaxText)))
		}
	}
	for _, n := range g.Nodes {
		p := pos[n.ID]
		fill, stroke, dash, sw := "#ffffff", "#6b7280", "", "1.5"
		if n.Visits > 0 {
			fill, stroke, sw = "#dcfce7", "#15803d", "2.5"
		}
		if n.Next {
			stroke, dash, sw = "#15803d", ` stroke-dasharray="5 4"`, "2.5"
		}
		rx := 6
		if n.Kind != KindRole {
			rx = svgNodeH / 2
		}
		fmt.Fprintf(&sb, `<g class="node" data-node="%s"><rect x="%d" y="%d" width="%d" height="%d" rx="%d" fill="%s" stroke="%s" stroke-width="%s"%s/>`,
			esc(n.ID), p.x-svgNodeW/2, p.y, svgNodeW, svgNodeH, rx, fill, stroke, sw, dash)
		fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="middle" font-size="13" font-family="sans-serif" fill="#111827">%s</text></g>`,
			p.x, p.y+svgNodeH/2+5, esc(text.Clip(nodeText(n), svgMaxText)))
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

// layers assigns each node its breadth-first distance from $START along
// the edges; nodes no edge reaches go one layer below the rest, with $END
// and $SUSPEND always at least one layer below what leads to them.
func layers(g Graph) map[string]int {
	out := map[string]int{moderator.Start: 0}
	queue := []string{moderator.Start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range g.Edges {
			if e.From != n {
				continue
			}
			if _, seen := out[e.To]; !seen {
				out[e.To] = out[n] + 1
				queue = append(queue, e.To)
			}
		}
	}
	deepest := 0
	for _, l := range out {
		deepest = max(deepest, l)
	}
	for _, n := range g.Nodes {
		if _, ok := out[n.ID]; !ok {
			out[n.ID] = deepest + 1
		}
	}
	// Terminals sit below every node that leads to them.
	for _, e := range g.Edges {
		if (e.To == moderator.End || e.To == moderator.Suspend) && out[e.To] <= out[e.From] {
			out[e.To] = out[e.From] + 1
		}
	}
	return out
}

func esc(s string) string { return html.EscapeString(s) }
