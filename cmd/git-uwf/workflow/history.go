package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/internal/text"
)

// HistoryOptions are the inputs of `workflow history`.
type HistoryOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Name string
}

// Version is one element of the machine output of `workflow history`.
type Version struct {
	Hash        string    `json:"hash"`
	Commit      string    `json:"commit"`
	UpdatedAt   time.Time `json:"updatedAt"`
	Description string    `json:"description"`
}

func newCmdHistory(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:        "history",
		Aliases:     []string{"log"},
		Usage:       "List the registered versions of a workflow, newest first",
		ArgsUsage:   "<name>",
		Description: "<name> is a registered workflow name, or the alias of one of its versions.",
		Action: func(c *cli.Context) error {
			name, format, err := cmdutil.OneArgAndFormat(c, "workflow name")
			if err != nil {
				return err
			}
			return historyRun(c.Context, &HistoryOptions{IO: f.IO, Repo: f.Repo, Format: format, Name: name})
		},
	}
}

func historyRun(ctx context.Context, opts *HistoryOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	versions, err := repo.WorkflowHistory(ctx, opts.Name)
	if err != nil {
		// Not a registered name: maybe the alias of a version.
		info, ferr := repo.FindWorkflow(ctx, opts.Name)
		if ferr != nil || info.Name == opts.Name {
			if errors.Is(err, chain.ErrUnknownWorkflow) {
				return fmt.Errorf("workflow %q is not registered (see 'git uwf workflow list')", opts.Name)
			}
			return err
		}
		if versions, err = repo.WorkflowHistory(ctx, info.Name); err != nil {
			return err
		}
	}
	out := make([]Version, len(versions))
	for i, v := range versions {
		out[i] = Version{Hash: string(v.Hash), Commit: v.Commit, UpdatedAt: v.UpdatedAt, Description: v.Description}
	}
	return cmdutil.Print(opts.IO, opts.Format, out, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "HASH\tCOMMIT\tUPDATED\tDESCRIPTION")
		for _, v := range out {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Hash, v.Commit[:min(12, len(v.Commit))],
				v.UpdatedAt.Format("2006-01-02 15:04"), text.FirstLine(v.Description, 60))
		}
		return tw.Flush()
	})
}
