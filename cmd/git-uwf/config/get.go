package configcmd

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

func newCmdGet(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "get",
		Usage:     "Print the value of a key (exit 1 when it is not set)",
		ArgsUsage: "<key>",
		Flags:     []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.FlagErrorf("want one key, got %d arguments", c.NArg())
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			cfg, err := load(c.Context, f)
			if err != nil {
				return err
			}
			e, ok, err := cfg.Get(c.Args().First())
			if err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			if !ok {
				return &cmdutil.ExitError{Code: 1, Err: fmt.Errorf("%s is not set", c.Args().First())}
			}
			return cmdutil.Print(f.IO, format, value(e), func(w io.Writer) error {
				_, err := fmt.Fprintln(w, e.Text)
				return err
			})
		},
	}
}
