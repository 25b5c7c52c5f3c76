package cas

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// GetOptions are the inputs of `cas get`.
type GetOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Alias  string
	Expand bool
}

// Node is the machine output of `cas get`. Type equals Hash for the
// self-typed meta-schema.
type Node struct {
	Hash    string `json:"hash"`
	Type    string `json:"type"`
	Payload any    `json:"payload"`
}

func newCmdGet(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "get",
		Usage:     "Print a node",
		ArgsUsage: "<alias>",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "expand", Usage: "replace references by the nodes they name, recursively"},
		},
		Action: func(c *cli.Context) error {
			alias, format, err := cmdutil.OneArgAndFormat(c, "alias")
			if err != nil {
				return err
			}
			return getRun(c.Context, &GetOptions{IO: f.IO, Repo: f.Repo, Format: format, Alias: alias, Expand: c.Bool("expand")})
		},
	}
}

func getRun(ctx context.Context, opts *GetOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	store := repo.Store
	n, err := getNode(store, opts.Alias)
	if err != nil {
		return err
	}
	res := Node{Hash: string(n.Alias), Type: string(n.Type), Payload: json.RawMessage(n.Payload)}
	if opts.Expand {
		if res.Payload, err = store.Expand(n.Alias); err != nil {
			return fmt.Errorf("expand node %s: %w", n.Alias, err)
		}
	}
	return cmdutil.Print(opts.IO, opts.Format, res, func(w io.Writer) error {
		typ := res.Type
		if t := schemaTitle(store, n.Type); t != "" {
			typ += " (" + t + ")"
		}
		if _, err := fmt.Fprintf(w, "hash: %s\ntype: %s\n\n", res.Hash, typ); err != nil {
			return err
		}
		return writeJSON(w, res.Payload)
	})
}
