package configcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/config"
)

// GetOptions are the inputs of `config get`.
type GetOptions struct {
	IO     *iostreams.IOStreams
	Config func(context.Context) (*config.Config, string, error)
	Format cmdutil.Format

	Key string
}

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
			return getRun(c.Context, &GetOptions{IO: f.IO, Config: f.LoadConfig, Format: format, Key: c.Args().First()})
		},
	}
}

func getRun(ctx context.Context, opts *GetOptions) error {
	cfg, _, err := opts.Config(ctx)
	if err != nil {
		return err
	}
	e, ok, err := cfg.Get(opts.Key)
	if err != nil {
		return cmdutil.FlagErrorf("%v", err)
	}
	if !ok {
		return &cmdutil.ExitError{Code: 1, Err: fmt.Errorf("%s is not set", opts.Key)}
	}
	return cmdutil.Print(opts.IO, opts.Format, value(e), func(w io.Writer) error {
		_, err := fmt.Fprintln(w, e.Text)
		return err
	})
}
