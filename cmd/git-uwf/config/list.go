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

// ListOptions are the inputs of `config list`.
type ListOptions struct {
	IO     *iostreams.IOStreams
	Config func(context.Context) (*config.Config, string, error)
	Format cmdutil.Format

	ShowOrigin bool
	Builtin    bool
}

func newCmdList(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "List the values set (secrets are shown as ***)",
		Flags: []cli.Flag{
			cmdutil.FormatFlag(),
			&cli.BoolFlag{Name: "show-origin", Usage: "show the file and line of each value"},
			&cli.BoolFlag{Name: "builtin", Usage: "include the built-in defaults"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c); err != nil {
				return err
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return listRun(c.Context, &ListOptions{IO: f.IO, Config: f.LoadConfig, Format: format,
				ShowOrigin: c.Bool("show-origin"), Builtin: c.Bool("builtin")})
		},
	}
}

func listRun(ctx context.Context, opts *ListOptions) error {
	cfg, _, err := opts.Config(ctx)
	if err != nil {
		return err
	}
	list := []Value{}
	for _, e := range cfg.List() {
		if e.Scope == config.ScopeBuiltin && !opts.Builtin {
			continue
		}
		list = append(list, value(e))
	}
	return cmdutil.Print(opts.IO, opts.Format, list, func(w io.Writer) error {
		for _, v := range list {
			if opts.ShowOrigin {
				origin := v.Scope
				if v.File != "" {
					origin = fmt.Sprintf("%s:%s:%d", v.Scope, v.File, v.Line)
				}
				fmt.Fprintf(w, "%s\t", origin)
			}
			fmt.Fprintf(w, "%s=%s\n", v.Key, v.Value)
		}
		return nil
	})
}
