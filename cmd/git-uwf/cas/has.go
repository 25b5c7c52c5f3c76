package cas

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/objects"
)

// HasOptions are the inputs of `cas has`.
type HasOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Alias string
}

// HasResult is the machine output of `cas has`.
type HasResult struct {
	Exists bool `json:"exists"`
}

func newCmdHas(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:        "has",
		Usage:       "Test whether a node exists (exit 0 if it does, 1 if not)",
		ArgsUsage:   "<alias>",
		Description: "Prints the answer and exits 0 when the node is present, 1 when it is absent, and 2\nwhen <alias> is not an alias or alias prefix.",
		Action: func(c *cli.Context) error {
			alias, format, err := cmdutil.OneArgAndFormat(c, "alias")
			if err != nil {
				return err
			}
			return hasRun(c.Context, &HasOptions{IO: f.IO, Repo: f.Repo, Format: format, Alias: alias})
		},
	}
}

func hasRun(ctx context.Context, opts *HasOptions) error {
	full, prefix, err := parseAlias(opts.Alias)
	if err != nil {
		return err
	}
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	var exists bool
	if full != "" {
		if exists, err = repo.Store.Has(full); err != nil {
			return fmt.Errorf("look up node %s: %w", full, err)
		}
	} else {
		_, err := repo.Store.ResolvePrefix(prefix)
		switch {
		case err == nil:
			exists = true
		case errors.Is(err, objects.ErrNotFound):
		default:
			return err
		}
	}
	res := HasResult{Exists: exists}
	if err := cmdutil.Print(opts.IO, opts.Format, res, func(w io.Writer) error {
		word := "present"
		if !exists {
			word = "absent"
		}
		_, err := fmt.Fprintf(w, "%s: %s\n", opts.Alias, word)
		return err
	}); err != nil {
		return err
	}
	if !exists {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure}
	}
	return nil
}
