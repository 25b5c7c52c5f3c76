package cas

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/objects"
)

// SchemaOptions are the inputs of `cas schema list` and `cas schema get`.
type SchemaOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	// Schema is the alias, prefix or title to get.
	Schema string
}

// SchemaEntry is one element of the machine output of `cas schema list`.
type SchemaEntry struct {
	Hash  string `json:"hash"`
	Title string `json:"title"`
}

func newCmdSchema(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "List and print the JSON Schemas nodes are typed by",
		Subcommands: []*cli.Command{
			{
				Name:        "list",
				Aliases:     []string{"ls"},
				Usage:       "List the schema nodes known to this repository, the meta-schema first",
				Description: "Lists every schema node the alias index knows, then sorted by title.",
				Action: func(c *cli.Context) error {
					if err := cmdutil.NoArgs(c); err != nil {
						return err
					}
					format, err := cmdutil.FormatOf(c)
					if err != nil {
						return err
					}
					return schemaListRun(c.Context, &SchemaOptions{IO: f.IO, Repo: f.Repo, Format: format})
				},
			},
			{
				Name:        "get",
				Usage:       "Print a JSON Schema",
				ArgsUsage:   "<alias|title>",
				Description: "<alias|title> is a schema alias, an unambiguous prefix, or a schema title.",
				Action: func(c *cli.Context) error {
					arg, format, err := cmdutil.OneArgAndFormat(c, "schema alias or title")
					if err != nil {
						return err
					}
					return schemaGetRun(c.Context, &SchemaOptions{IO: f.IO, Repo: f.Repo, Format: format, Schema: arg})
				},
			},
		},
	}
}

func schemaListRun(ctx context.Context, opts *SchemaOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	schemas, err := repo.Store.Schemas()
	if err != nil {
		return fmt.Errorf("list schemas: %w", err)
	}
	out := make([]SchemaEntry, len(schemas))
	for i, s := range schemas {
		out[i] = SchemaEntry{Hash: string(s.Alias), Title: s.Title}
	}
	return cmdutil.Print(opts.IO, opts.Format, out, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "HASH\tTITLE")
		for _, s := range out {
			fmt.Fprintf(tw, "%s\t%s\n", s.Hash, s.Title)
		}
		return tw.Flush()
	})
}

func schemaGetRun(ctx context.Context, opts *SchemaOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	a, err := resolveSchema(repo.Store, opts.Schema)
	if err != nil {
		return err
	}
	n, err := getNode(repo.Store, string(a))
	if err != nil {
		return err
	}
	doc, err := repo.Store.Schema(a)
	if errors.Is(err, objects.ErrNotSchema) {
		return fmt.Errorf("node %s is not a schema (its type is %s)", a, n.Type)
	}
	if err != nil {
		return fmt.Errorf("read schema %s: %w", a, err)
	}
	return cmdutil.Print(opts.IO, opts.Format, doc, func(w io.Writer) error {
		return writeJSON(w, doc)
	})
}
