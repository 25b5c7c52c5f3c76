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

// ReindexOptions are the inputs of `cas reindex`.
type ReindexOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format
}

// ReindexResult is the machine output of `cas reindex`.
type ReindexResult struct {
	Aliases int `json:"aliases"`
}

func newCmdReindex(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "reindex",
		Usage: "Drop and rebuild the local alias index from the uwf refs",
		Description: "The alias → object index under $GIT_COMMON_DIR/uwf/index is derived data. Rebuilding\n" +
			"it reads every commit reachable from refs/uwf/* (and remote-tracking uwf refs). Nodes\n" +
			"no ref reaches, such as those just written with 'cas put', are forgotten.",
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c); err != nil {
				return err
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return reindexRun(c.Context, &ReindexOptions{IO: f.IO, Repo: f.Repo, Format: format})
		},
	}
}

func reindexRun(ctx context.Context, opts *ReindexOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	n, err := repo.Store.Reindex(ctx)
	if err != nil {
		return fmt.Errorf("rebuild the alias index in %s: %w", repo.Info.CommonDir, err)
	}
	res := ReindexResult{Aliases: n}
	return cmdutil.Print(opts.IO, opts.Format, res, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "indexed %d aliases\n", n)
		return err
	})
}
