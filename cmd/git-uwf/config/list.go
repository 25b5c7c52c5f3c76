package configcmd

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/config"
)

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
			cfg, err := load(c.Context, f)
			if err != nil {
				return err
			}
			list := []Value{}
			for _, e := range cfg.List() {
				if e.Scope == config.ScopeBuiltin && !c.Bool("builtin") {
					continue
				}
				list = append(list, value(e))
			}
			return cmdutil.Print(f.IO, format, list, func(w io.Writer) error {
				for _, v := range list {
					if c.Bool("show-origin") {
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
		},
	}
}
