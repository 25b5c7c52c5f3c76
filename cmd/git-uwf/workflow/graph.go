package workflow

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/moderator"
)

// GraphOptions are the inputs of `workflow graph`: those of `workflow show`.
type GraphOptions = ShowOptions

// Graph is the machine output of `workflow graph`.
type Graph struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

// GraphNode is a node of the routing graph. Kind is "start", "role", "end"
// or "suspend"; the ID of a role is its name, the others are $START, $END
// and $SUSPEND.
type GraphNode struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
}

// GraphEdge is one transition, in the order routing tries them. Status is
// the guard of a status-map edge ("_" is the default), Condition the guard
// of a transitions edge ("" always matches); Prompt and Location are the
// unrendered templates.
type GraphEdge struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Status    string `json:"status"`
	Condition string `json:"condition"`
	Prompt    string `json:"prompt"`
	Location  string `json:"location"`
}

func newCmdGraph(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "graph",
		Usage:     "Print a workflow's routing graph as a Mermaid flowchart",
		ArgsUsage: "<name|alias|file>",
		Description: "Text output is a Mermaid `flowchart TD` (paste it into a ```mermaid block);\n" +
			"--format json gives {nodes, edges}.",
		Action: func(c *cli.Context) error {
			arg, err := cmdutil.OneArg(c, "workflow name, alias or file")
			if err != nil {
				return err
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return graphRun(c.Context, &GraphOptions{IO: f.IO, Repo: f.Repo, Resolve: resolver(f), Format: format, Workflow: arg})
		},
	}
}

func graphRun(ctx context.Context, opts *GraphOptions) error {
	_, info, err := opts.resolve(ctx)
	if err != nil {
		return err
	}
	g := buildGraph(info.Workflow)
	return cmdutil.Print(opts.IO, opts.Format, g, func(out io.Writer) error {
		_, err := io.WriteString(out, mermaid(g))
		return err
	})
}

// buildGraph lists the nodes ($START, the roles in order, then $END and
// $SUSPEND when an edge reaches them) and the edges of w.
func buildGraph(w *moderator.Workflow) Graph {
	g := Graph{Nodes: []GraphNode{{ID: moderator.Start, Kind: "start"}}, Edges: []GraphEdge{}}
	for _, r := range w.RoleOrder {
		g.Nodes = append(g.Nodes, GraphNode{ID: r, Kind: "role"})
	}
	targets := map[string]bool{}
	for _, e := range edges(w) {
		targets[e.To] = true
		g.Edges = append(g.Edges, GraphEdge{From: e.From, To: e.To, Status: e.Status,
			Condition: e.Condition, Prompt: e.Prompt, Location: e.Location})
	}
	if targets[moderator.End] {
		g.Nodes = append(g.Nodes, GraphNode{ID: moderator.End, Kind: "end"})
	}
	if targets[moderator.Suspend] {
		g.Nodes = append(g.Nodes, GraphNode{ID: moderator.Suspend, Kind: "suspend"})
	}
	return g
}

// mermaid renders g as a Mermaid flowchart. Node ids are generated (n0,
// n1, …) so that no role name can clash with Mermaid's syntax or keywords.
func mermaid(g Graph) string {
	var sb strings.Builder
	sb.WriteString("flowchart TD\n")
	ids := map[string]string{}
	for i, n := range g.Nodes {
		id := fmt.Sprintf("n%d", i)
		ids[n.ID] = id
		switch n.Kind {
		case "role":
			fmt.Fprintf(&sb, "  %s[\"%s\"]\n", id, mermaidText(n.ID))
		default:
			fmt.Fprintf(&sb, "  %s([\"%s\"])\n", id, mermaidText(n.ID))
		}
	}
	for _, e := range g.Edges {
		label := e.Condition
		if e.Status != "" && e.Status != moderator.DefaultStatus {
			label = e.Status
		}
		from, to := ids[e.From], ids[e.To]
		if label == "" {
			fmt.Fprintf(&sb, "  %s --> %s\n", from, to)
		} else {
			fmt.Fprintf(&sb, "  %s -->|\"%s\"| %s\n", from, mermaidText(label), to)
		}
	}
	return sb.String()
}

// mermaidText escapes text for a quoted Mermaid label.
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "\n", " ").Replace(s)
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
