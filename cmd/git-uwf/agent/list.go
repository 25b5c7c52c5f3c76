package agent

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/config"
)

// AliasInfo is one line of `agent list --format json`.
type AliasInfo struct {
	Alias   string   `json:"alias"`
	Command string   `json:"command"`
	Argv    []string `json:"argv"`
	// Scope is built-in, user, team or repo; Where adds the file and line.
	Scope   string `json:"scope"`
	Where   string `json:"where"`
	Default bool   `json:"default"`
}

// ListOptions are the inputs of `agent list`.
type ListOptions struct {
	IO     *iostreams.IOStreams
	Config func(context.Context) (*config.Config, string, error)
	Format cmdutil.Format
}

func newCmdList(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "List the agent aliases, their command lines and where they are defined",
		Flags: []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c); err != nil {
				return err
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return listRun(c.Context, &ListOptions{IO: f.IO, Config: f.LoadConfig, Format: format})
		},
	}
}

func listRun(ctx context.Context, opts *ListOptions) error {
	cfg, _, err := opts.Config(ctx)
	if err != nil {
		return err
	}
	var list []AliasInfo
	for _, alias := range cfg.Aliases() {
		a := cfg.Agents[alias]
		list = append(list, AliasInfo{Alias: alias, Command: a.Command, Argv: a.Argv, Scope: string(a.Scope),
			Where: a.Where, Default: alias == cfg.DefaultAgent})
	}
	return cmdutil.Print(opts.IO, opts.Format, list, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ALIAS\tCOMMAND\tDEFINED IN")
		for _, a := range list {
			mark := ""
			if a.Default {
				mark = " (default)"
			}
			fmt.Fprintf(tw, "%s%s\t%s\t%s\n", a.Alias, mark, a.Command, a.Where)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if cfg.DefaultAgent == "" {
			fmt.Fprintln(w, "\nno default agent: run git uwf setup, or pass --agent to thread step")
		}
		return nil
	})
}
