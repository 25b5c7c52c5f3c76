package thread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/engine/scheduler"
)

// JoinOptions are the inputs of `thread join`.
type JoinOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Threads []string
	// Timeout gives up waiting after this long (0: never).
	Timeout time.Duration
}

func newCmdJoin(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "join",
		Usage:     "Wait for background steps to end; exit with the outcome of the first that failed",
		ArgsUsage: "<thread>…",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "timeout", Usage: "give up after `DURATION` (exit 75; the steps keep running)"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cmdutil.FlagErrorf("thread join needs at least one thread id")
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return joinRun(c.Context, &JoinOptions{IO: f.IO, Repo: f.Repo, Format: format,
				Threads: c.Args().Slice(), Timeout: c.Duration("timeout")})
		},
	}
}

func joinRun(ctx context.Context, opts *JoinOptions) error {
	timeout := opts.Timeout
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	bg := scheduler.NewBackgrounds(repo.UwfDir())
	var recs []*scheduler.Background
	for _, a := range opts.Threads {
		id, err := repo.ResolveThread(ctx, a)
		if err != nil {
			return err
		}
		rec, err := bg.Load(string(id))
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var results []joinResult
	var first error
	for _, rec := range recs {
		o, err := rec.Wait(ctx)
		id := chain.ThreadID(rec.Thread)
		r := joinResult{Thread: id}
		switch {
		case err != nil && ctx.Err() != nil && timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
			return &cmdutil.ExitError{Code: cmdutil.ExitLocked, Err: fmt.Errorf("thread %s: the background step is still running after --timeout %s", id, timeout)}
		case err != nil && ctx.Err() != nil:
			return cmdutil.ErrCancelled
		case err != nil:
			r.ExitCode, r.Error = cmdutil.ExitFailure, err.Error()
		default:
			r.ExitCode, r.Error = o.ExitCode, o.Error
		}
		if t, err := repo.Thread(ctx, id); err == nil {
			if st, err := repo.State(ctx, t); err == nil {
				r.Status = st.Status
			}
		}
		if r.ExitCode != 0 && first == nil {
			first = &cmdutil.ExitError{Code: r.ExitCode, Err: fmt.Errorf("thread %s: %s", id, r.Error)}
		}
		results = append(results, r)
	}
	perr := cmdutil.Print(opts.IO, opts.Format, results, func(w io.Writer) error {
		for _, r := range results {
			if r.ExitCode == 0 {
				fmt.Fprintf(w, "thread %s: background step done; the thread is %s\n", r.Thread, r.Status)
			} else {
				fmt.Fprintf(w, "thread %s: background step failed (exit %d); the thread is %s\n", r.Thread, r.ExitCode, r.Status)
			}
		}
		return nil
	})
	if first != nil {
		return first
	}
	return perr
}
