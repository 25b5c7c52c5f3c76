package graph

import (
	"fmt"
	"strconv"
	"strings"
)

// nodeIDs gives every node a generated id (n0, n1, …) so that no role name
// can clash with the syntax or keywords of the output language.
func (g *Graph) nodeIDs() map[string]string {
	ids := make(map[string]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[n.ID] = "n" + strconv.Itoa(i)
	}
	return ids
}

// edgeText is an edge's label plus, on a traced graph, how often the
// thread took it.
func edgeText(e Edge) string {
	label := e.Label()
	if e.Taken > 1 {
		if label != "" {
			label += " "
		}
		label += "×" + strconv.Itoa(e.Taken)
	}
	return label
}

// nodeText is a node's label plus its visit count when above one.
func nodeText(n Node) string {
	if n.Visits > 1 {
		return n.ID + " ×" + strconv.Itoa(n.Visits)
	}
	return n.ID
}

// Mermaid renders g as a Mermaid flowchart. On a traced graph the visited
// nodes and taken edges are styled, the next role is dashed and forks hang
// off the node where they left this thread's history with dotted edges.
func Mermaid(g Graph) string {
	var sb strings.Builder
	sb.WriteString("flowchart TD\n")
	ids := g.nodeIDs()
	for i, n := range g.Nodes {
		id := "n" + strconv.Itoa(i)
		switch n.Kind {
		case KindRole:
			fmt.Fprintf(&sb, "  %s[\"%s\"]\n", id, mermaidText(nodeText(n)))
		default:
			fmt.Fprintf(&sb, "  %s([\"%s\"])\n", id, mermaidText(nodeText(n)))
		}
	}
	var taken []string
	for i, e := range g.Edges {
		label := edgeText(e)
		from, to := ids[e.From], ids[e.To]
		if label == "" {
			fmt.Fprintf(&sb, "  %s --> %s\n", from, to)
		} else {
			fmt.Fprintf(&sb, "  %s -->|\"%s\"| %s\n", from, mermaidText(label), to)
		}
		if e.Taken > 0 {
			taken = append(taken, strconv.Itoa(i))
		}
	}
	links := len(g.Edges)
	for i, f := range g.Forks {
		id := "f" + strconv.Itoa(i)
		fmt.Fprintf(&sb, "  %s{{\"%s %s\"}}\n", id, f.Relation, mermaidText(f.Thread))
		if at, ok := ids[f.At]; ok {
			if f.Relation == "parent" {
				fmt.Fprintf(&sb, "  %s -.->|\"step %d\"| %s\n", id, f.Step, at)
			} else {
				fmt.Fprintf(&sb, "  %s -.->|\"step %d\"| %s\n", at, f.Step, id)
			}
			links++
		}
	}
	if !g.Traced() {
		return sb.String()
	}
	sb.WriteString("  classDef visited fill:#dcfce7,stroke:#15803d,stroke-width:2px\n")
	sb.WriteString("  classDef next fill:#fff,stroke:#15803d,stroke-width:2px,stroke-dasharray:5 5\n")
	sb.WriteString("  classDef fork fill:#eef2ff,stroke:#4338ca\n")
	var visited, next []string
	for i, n := range g.Nodes {
		switch {
		case n.Next:
			next = append(next, "n"+strconv.Itoa(i))
		case n.Visits > 0:
			visited = append(visited, "n"+strconv.Itoa(i))
		}
	}
	if len(visited) > 0 {
		fmt.Fprintf(&sb, "  class %s visited\n", strings.Join(visited, ","))
	}
	if len(next) > 0 {
		fmt.Fprintf(&sb, "  class %s next\n", strings.Join(next, ","))
	}
	if len(g.Forks) > 0 {
		forks := make([]string, len(g.Forks))
		for i := range g.Forks {
			forks[i] = "f" + strconv.Itoa(i)
		}
		fmt.Fprintf(&sb, "  class %s fork\n", strings.Join(forks, ","))
	}
	if len(taken) > 0 {
		fmt.Fprintf(&sb, "  linkStyle %s stroke:#15803d,stroke-width:3px\n", strings.Join(taken, ","))
	}
	return sb.String()
}

// mermaidText escapes text for a quoted Mermaid label (quotes and angle
// brackets as Mermaid entity codes, so a label is never markup).
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "\n", " ", "\r", " ").Replace(s)
}

// DOT renders g as a Graphviz digraph. Every id and label is a quoted DOT
// string, so any role name or condition is valid input for dot(1).
func DOT(g Graph) string {
	var sb strings.Builder
	sb.WriteString("digraph workflow {\n")
	sb.WriteString("  rankdir=TB;\n")
	sb.WriteString("  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n")
	sb.WriteString("  edge [fontname=\"Helvetica\", fontsize=10];\n")
	ids := g.nodeIDs()
	for _, n := range g.Nodes {
		attrs := []string{"label=" + dotString(nodeText(n))}
		if n.Kind != KindRole {
			attrs = append(attrs, "shape=ellipse")
		}
		switch {
		case n.Next:
			attrs = append(attrs, `style="rounded,dashed"`, `color="#15803d"`, "penwidth=2")
		case n.Visits > 0:
			attrs = append(attrs, `style="rounded,filled"`, `fillcolor="#dcfce7"`, `color="#15803d"`, "penwidth=2")
		}
		fmt.Fprintf(&sb, "  %s [%s];\n", ids[n.ID], strings.Join(attrs, ", "))
	}
	for _, e := range g.Edges {
		var attrs []string
		if label := edgeText(e); label != "" {
			attrs = append(attrs, "label="+dotString(label))
		}
		if e.Taken > 0 {
			attrs = append(attrs, `color="#15803d"`, "penwidth="+strconv.Itoa(min(2+e.Taken, 6)))
		}
		fmt.Fprintf(&sb, "  %s -> %s", ids[e.From], ids[e.To])
		if len(attrs) > 0 {
			fmt.Fprintf(&sb, " [%s]", strings.Join(attrs, ", "))
		}
		sb.WriteString(";\n")
	}
	for i, f := range g.Forks {
		id := "f" + strconv.Itoa(i)
		fmt.Fprintf(&sb, "  %s [label=%s, shape=hexagon, color=\"#4338ca\"];\n", id, dotString(f.Relation+" "+f.Thread))
		if at, ok := ids[f.At]; ok {
			from, to := at, id
			if f.Relation == "parent" {
				from, to = id, at
			}
			fmt.Fprintf(&sb, "  %s -> %s [style=dotted, label=%s];\n", from, to, dotString("step "+strconv.Itoa(f.Step)))
		}
	}
	sb.WriteString("}\n")
	return sb.String()
}

// dotString quotes s as a DOT double-quoted string.
func dotString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "").Replace(s) + `"`
}
