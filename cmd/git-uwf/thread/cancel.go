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
	"github.com/git-uwf/git-uwf/engine"
)

// CancelOptions are the inputs of `thread cancel`.
type CancelOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Thread string
	// Reason is recorded in the cancel commit.
	Reason string
	// Wait bounds the wait for a running step to stop.
	Wait time.Duration
}

// cancelRunning cancels a thread whose step another process is running:
// it raises the thread's kill flag, which makes that process stop the
// agent's process group and record the cancellation, and waits for the
// thread lock. Should the stepping process be gone without recording it,
// the cancellation is recorded here.
func cancelRunning(ctx context.Context, opts *CancelOptions, repo *chain.Repo, id chain.ThreadID) error {
	reason, wait := opts.Reason, opts.Wait
	if reason == "" {
		reason = "cancelled while running"
	}
	kill := engine.NewKillFlags(repo)
	if err := kill.Raise(id, reason); err != nil {
		return err
	}
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		unlock, err := repo.LockThread(id)
		if err == nil {
			defer unlock()
			break
		}
		if !errors.Is(err, chain.ErrBusy) {
			return err
		}
		if time.Now().After(deadline) {
			return &cmdutil.ExitError{Code: cmdutil.ExitLocked, Err: fmt.Errorf("thread %s: the running step did not stop within --wait %s; its kill flag stays raised, so it is cancelled as soon as its agent returns", id, wait)}
		}
		select {
		case <-ctx.Done():
			return cmdutil.ErrCancelled
		case <-tick.C:
		}
	}
	t, err := repo.Thread(ctx, id)
	if err != nil {
		return err
	}
	commit := t.Head.Commit
	if t.Head.Kind != chain.KindCancel {
		e, err := repo.Cancel(ctx, t, reason)
		if err != nil {
			return err
		}
		commit = e.Commit
	}
	if err := kill.Clear(id); err != nil {
		return err
	}
	out := map[string]any{"thread": id, "cancelled": true, "commit": commit.String(), "stoppedStep": true}
	return cmdutil.Print(opts.IO, opts.Format, out, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "cancelled thread %s (its running step was stopped)\n", id)
		return err
	})
}

func newCmdCancel(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "cancel",
		Usage:     "Cancel a thread (a terminal commit that syncs like any other)",
		ArgsUsage: "<thread>",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Aliases: []string{"m"}, Usage: "why (recorded in the commit)"},
			&cli.DurationFlag{Name: "wait", Value: 30 * time.Second, Usage: "for a running step, wait up to `DURATION` for it to stop"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			arg, format, err := cmdutil.OneArgAndFormat(c, "thread id")
			if err != nil {
				return err
			}
			return cancelRun(c.Context, &CancelOptions{IO: f.IO, Repo: f.Repo, Format: format,
				Thread: arg, Reason: c.String("reason"), Wait: c.Duration("wait")})
		},
	}
}

func cancelRun(ctx context.Context, opts *CancelOptions) error {
	repo, t, err := loadThread(ctx, opts.Repo, opts.Thread)
	if err != nil {
		return err
	}
	unlock, err := repo.LockThread(t.ID)
	if errors.Is(err, chain.ErrBusy) {
		// A step is running: stop it through its kill flag.
		return cancelRunning(ctx, opts, repo, t.ID)
	}
	if err != nil {
		return busyExit(err)
	}
	defer unlock()
	if t, err = repo.Thread(ctx, t.ID); err != nil {
		return err
	}
	// A child thread playing the current role is cancelled first, and its
	// children with it.
	children, err := cancelChildren(ctx, repo, t, opts.Reason)
	if err != nil {
		return busyExit(err)
	}
	e, err := repo.Cancel(ctx, t, opts.Reason)
	if err != nil {
		return err
	}
	_ = engine.NewKillFlags(repo).Clear(t.ID)
	out := map[string]any{"thread": t.ID, "cancelled": true, "commit": e.Commit.String()}
	if len(children) > 0 {
		out["children"] = children
	}
	return cmdutil.Print(opts.IO, opts.Format, out, func(w io.Writer) error {
		for _, id := range children {
			fmt.Fprintf(w, "cancelled child thread %s\n", id)
		}
		_, err := fmt.Fprintf(w, "cancelled thread %s\n", t.ID)
		return err
	})
}

// cancelChildren cancels the unfinished child thread playing t's current
// role, deepest first; it returns the ids it cancelled.
func cancelChildren(ctx context.Context, repo *chain.Repo, t *chain.Thread, reason string) ([]chain.ThreadID, error) {
	child, err := repo.ActiveChild(ctx, t)
	if err != nil || child == nil {
		return nil, err
	}
	unlock, err := repo.LockThread(child.ID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if child, err = repo.Thread(ctx, child.ID); err != nil {
		return nil, err
	}
	done, err := cancelChildren(ctx, repo, child, reason)
	if err != nil {
		return nil, err
	}
	if st, err := repo.State(ctx, child); err != nil || st.Status == chain.StatusCompleted || st.Status == chain.StatusCancelled {
		return done, err
	}
	if reason == "" {
		reason = "parent thread " + string(t.ID) + " cancelled"
	}
	if _, err := repo.Cancel(ctx, child, reason); err != nil {
		return nil, err
	}
	return append(done, child.ID), nil
}
