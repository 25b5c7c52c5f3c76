package agent

import (
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

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
			h := &builtins.Human{Stdin: f.IO.In, StdinTTY: f.IO.IsStdinTTY(), Editor: builtins.EditorFrom(f.Getenv),
				Stderr: f.IO.ErrOut, Env: f.Environ()}
			return serve(c.Context, f, h, c.Args().Slice())
		},
	}
}
