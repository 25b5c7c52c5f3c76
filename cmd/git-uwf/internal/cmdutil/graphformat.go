package cmdutil

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/graph"
)

// Graph output formats, for the commands that draw a graph (`workflow
// graph`, `thread graph`): the machine formats plus two drawing languages.
const (
	GraphMermaid Format = "mermaid"
	GraphDOT     Format = "dot"
)

// GraphFormatFlag returns the --format flag of a graph command.
func GraphFormatFlag() cli.Flag {
	return &cli.StringFlag{
		Name:  formatFlagName,
		Usage: "output `FORMAT`: mermaid, dot, json or yaml",
		Value: string(GraphMermaid),
	}
}

// GraphFormatOf returns the graph format chosen for the running command:
// its own --format when given, else the global one (text meaning mermaid).
func GraphFormatOf(c *cli.Context) (Format, error) {
	if !c.IsSet(formatFlagName) {
		f, err := FormatOf(c)
		if err != nil || f != FormatText {
			return f, err
		}
		return GraphMermaid, nil
	}
	switch f := Format(strings.ToLower(strings.TrimSpace(c.String(formatFlagName)))); f {
	case GraphMermaid, GraphDOT, FormatJSON, FormatYAML:
		return f, nil
	case FormatText, "":
		return GraphMermaid, nil
	default:
		return "", &FlagError{Err: fmt.Errorf("--format: unknown format %q: want mermaid, dot, json or yaml", string(f))}
	}
}

// PrintGraph writes g to ios.Out as Mermaid or DOT, or as json or yaml.
func PrintGraph(ios *iostreams.IOStreams, format Format, g graph.Graph) error {
	switch format {
	case GraphDOT:
		_, err := io.WriteString(ios.Out, graph.DOT(g))
		return err
	case GraphMermaid, FormatText, "":
		_, err := io.WriteString(ios.Out, graph.Mermaid(g))
		return err
	default:
		return Print(ios, format, g, nil)
	}
}
