package cas

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// RefsOptions are the inputs of `cas refs` and `cas walk`.
type RefsOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Alias string
}

// RefsResult is the machine output of `cas refs`: the aliases the node
// refers to directly, in canonical key order.
type RefsResult struct {
	Refs []string `json:"refs"`
}

// WalkResult is the machine output of `cas walk`: the node and every node
// reachable from it, breadth first, root first, each once.
type WalkResult struct {
	Hashes []string `json:"hashes"`
}

func newCmdRefs(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "refs",
		Usage:     "List the nodes a node refers to",
		ArgsUsage: "<alias>",
		Description: "References are the strings at positions whose schema has format \"uwf_ref\" (or\n" +
			"\"ocas_ref\"); the type link is not one.",
		Action: func(c *cli.Context) error {
			opts, err := refsOptions(c, f)
			if err != nil {
				return err
			}
			return refsRun(c.Context, opts)
		},
	}
}

func newCmdWalk(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:        "walk",
		Usage:       "List a node and every node reachable from it, breadth first",
		ArgsUsage:   "<alias>",
		Description: "Referenced nodes that are not available locally are skipped.",
		Action: func(c *cli.Context) error {
			opts, err := refsOptions(c, f)
			if err != nil {
				return err
			}
			return walkRun(c.Context, opts)
		},
	}
}

func refsOptions(c *cli.Context, f *cmdutil.Factory) (*RefsOptions, error) {
	alias, err := cmdutil.OneArg(c, "alias")
	if err != nil {
		return nil, err
	}
	format, err := cmdutil.FormatOf(c)
	if err != nil {
		return nil, err
	}
	return &RefsOptions{IO: f.IO, Repo: f.Repo, Format: format, Alias: alias}, nil
}

func refsRun(ctx context.Context, opts *RefsOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	n, err := getNode(repo.Store, opts.Alias)
	if err != nil {
		return err
	}
	refs, err := repo.Store.Refs(n)
	if err != nil {
		return fmt.Errorf("references of node %s: %w", n.Alias, err)
	}
	res := RefsResult{Refs: aliasStrings(refs)}
	return cmdutil.Print(opts.IO, opts.Format, res, func(w io.Writer) error {
		return writeLines(w, res.Refs)
	})
}

func walkRun(ctx context.Context, opts *RefsOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	a, err := resolveAlias(repo.Store, opts.Alias)
	if err != nil {
		return err
	}
	if _, err := getNode(repo.Store, string(a)); err != nil {
		return err
	}
	hashes, err := repo.Store.Walk(a)
	if err != nil {
		return fmt.Errorf("walk from node %s: %w", a, err)
	}
	res := WalkResult{Hashes: aliasStrings(hashes)}
	return cmdutil.Print(opts.IO, opts.Format, res, func(w io.Writer) error {
		return writeLines(w, res.Hashes)
	})
}
