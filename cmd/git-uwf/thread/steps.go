package thread

import (
	"context"
	"encoding/hex"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// stepsOutput is the machine-readable result of `thread steps`.
type stepsOutput struct {
	Thread   chain.ThreadID   `json:"thread"`
	Workflow string           `json:"workflow"`
	Steps    []chain.StepInfo `json:"steps"`
}

// StepsOptions are the inputs of `thread steps`.
type StepsOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Thread string
}

func newCmdSteps(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "steps",
		Usage:     "List a thread's steps from the start to the head",
		ArgsUsage: "<thread>",
		Flags:     []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			arg, format, err := cmdutil.OneArgAndFormat(c, "thread id")
			if err != nil {
				return err
			}
			return stepsRun(c.Context, &StepsOptions{IO: f.IO, Repo: f.Repo, Format: format, Thread: arg})
		},
	}
}

func stepsRun(ctx context.Context, opts *StepsOptions) error {
	repo, t, err := loadThread(ctx, opts.Repo, opts.Thread)
	if err != nil {
		return err
	}
	if opts.Format == cmdutil.FormatText || opts.Format == "" {
		// The table shows the status of each output, not the rest of it.
		tb, err := stepsTable(ctx, repo, t)
		if err != nil {
			return err
		}
		return cmdutil.Print(opts.IO, opts.Format, nil, func(w io.Writer) error {
			_, err := tb.WriteTo(w)
			return err
		})
	}
	steps, err := repo.Steps(ctx, t)
	if err != nil {
		return err
	}
	return cmdutil.Print(opts.IO, opts.Format, stepsOutput{Thread: t.ID, Workflow: t.Workflow.Name, Steps: steps}, nil)
}

// stepsTable lays out `thread steps` for people.
func stepsTable(ctx context.Context, repo *chain.Repo, t *chain.Thread) (*cmdutil.Table, error) {
	rows, err := repo.StepRows(ctx, t.Head.Commit)
	if err != nil {
		return nil, err
	}
	tb := cmdutil.NewTable("#", "STEP", "COMMIT", "ROLE", "STATUS", "AGENT", "DURATION")
	tb.Grow(len(rows))
	for i, r := range rows {
		role, status, agent, dur := "(start)", "-", "-", "-"
		switch r.Kind {
		case chain.KindStep:
			role, status, agent, dur = r.Role, r.Status, r.Agent, chain.FormatDuration(msDuration(r.DurationMs))
		case chain.KindCancel:
			role, status = "(cancel)", r.Status
		}
		tb.Row(strconv.Itoa(i), string(r.Alias), hex.EncodeToString(r.Commit[:6]), role, status, agent, dur)
	}
	return tb, nil
}
