package agent

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

// HumanOptions are the inputs of `agent human`.
type HumanOptions struct {
	ProtocolOptions
}

func newCmdHuman(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "human",
		Usage:     "Let a person answer, in $VISUAL/$EDITOR or on stdin",
		ArgsUsage: protocolUsage,
		Description: "The editor opens a file pre-filled with a frontmatter template for the role\n" +
			"and the full prompt as comments below a scissors line. When stdin is not a\n" +
			"terminal and carries text, that text is the answer. An empty or unchanged\n" +
			"answer fails with \"no answer given\".",
		Action: func(c *cli.Context) error {
			return humanRun(c.Context, &HumanOptions{ProtocolOptions: protocolOptions(f, c.Args().Slice())})
		},
	}
}

func humanRun(ctx context.Context, opts *HumanOptions) error {
	h := &builtins.Human{Stdin: opts.IO.In, StdinTTY: opts.IO.IsStdinTTY(), Editor: builtins.EditorFrom(opts.Getenv),
		Stderr: opts.IO.ErrOut, Env: opts.Environ()}
	return serve(ctx, &opts.ProtocolOptions, h)
}
