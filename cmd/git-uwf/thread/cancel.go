package thread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/engine"
)

// cancelRunning cancels a thread whose step another process is running:
// it raises the thread's kill flag, which makes that process stop the
// agent's process group and record the cancellation, and waits for the
// thread lock. Should the stepping process be gone without recording it,
// the cancellation is recorded here.
func cancelRunning(ctx context.Context, f *cmdutil.Factory, repo *chain.Repo, id chain.ThreadID, reason string, wait time.Duration, format cmdutil.Format) error {
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
	return cmdutil.Print(f.IO, format, out, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "cancelled thread %s (its running step was stopped)\n", id)
		return err
	})
}
