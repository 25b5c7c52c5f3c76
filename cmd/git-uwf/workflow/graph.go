package workflow

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/graph"
)

// GraphOptions are the inputs of `workflow graph`: those of `workflow show`.
type GraphOptions = ShowOptions

// Graph is the machine output of `workflow graph`: {nodes, edges}.
type Graph = graph.Graph

func newCmdGraph(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "graph",
		Usage:     "Print a workflow's routing graph (Mermaid, Graphviz DOT or JSON)",
		ArgsUsage: "<name|alias|file>",
		Flags:     []cli.Flag{cmdutil.GraphFormatFlag()},
		Description: "The default output is a Mermaid `flowchart TD` (paste it into a ```mermaid block);\n" +
			"--format dot gives a Graphviz digraph (git uwf workflow graph review --format dot | dot -Tsvg),\n" +
			"--format json gives {nodes, edges}. Edges are labelled with the status or condition they need.",
		Action: argAction("workflow name, alias or file", cmdutil.GraphFormatOf, func(ctx context.Context, arg string, format cmdutil.Format) error {
			return graphRun(ctx, &GraphOptions{IO: f.IO, Repo: f.Repo, Resolve: resolver(f), Format: format, Workflow: arg})
		}),
	}
}

func graphRun(ctx context.Context, opts *GraphOptions) error {
	_, info, err := opts.resolve(ctx)
	if err != nil {
		return err
	}
	g := graph.Build(info.Workflow)
	return cmdutil.PrintGraph(opts.IO, opts.Format, g)
}
