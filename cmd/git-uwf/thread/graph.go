package thread

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/graph/threadgraph"
)

// GraphOptions are the inputs of `thread graph`.
type GraphOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format // a graph format: mermaid, dot, json or yaml

	Thread string
}

func newCmdGraph(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "graph",
		Usage:     "Draw a thread on its workflow's graph: the path taken, loops, next role and forks",
		ArgsUsage: "<thread>",
		Flags:     []cli.Flag{cmdutil.GraphFormatFlag()},
		Description: "Nodes and edges the thread went through are highlighted and counted (×2 for a loop\n" +
			"taken twice), the role it runs next is dashed, and threads that share its history\n" +
			"hang off the step where they part (\"fork\" for forks of it, \"parent\" for the thread\n" +
			"it was forked from). --format mermaid (default), dot, json or yaml.",
		Action: func(c *cli.Context) error {
			arg, err := cmdutil.OneArg(c, "thread id")
			if err != nil {
				return err
			}
			format, err := cmdutil.GraphFormatOf(c)
			if err != nil {
				return err
			}
			return graphRun(c.Context, &GraphOptions{IO: f.IO, Repo: f.Repo, Format: format, Thread: arg})
		},
	}
}

func graphRun(ctx context.Context, opts *GraphOptions) error {
	v, err := viewThread(ctx, opts.Repo, opts.Thread)
	if err != nil {
		return err
	}
	rels, err := v.repo.Relatives(ctx, v.thread, v.entries)
	if err != nil {
		return err
	}
	g, err := threadgraph.Build(ctx, v.repo, v.thread, v.entries, v.state, rels)
	if err != nil {
		return err
	}
	return cmdutil.PrintGraph(opts.IO, opts.Format, g)
}
