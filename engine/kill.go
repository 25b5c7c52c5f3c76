package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/atomicfile"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// KillFlags are the per-thread kill flags `thread cancel` raises for a
// step that another process is running: one file per thread under Dir,
// holding the reason. The process stepping the thread watches its flag
// while the agent runs (and stops the agent's process group when it
// appears) and checks it before the role runs and after the agent
// returns, so a step that finishes after the cancel is never appended.
type KillFlags struct{ Dir string }

// NewKillFlags returns the kill flags of a repository.
func NewKillFlags(repo *chain.Repo) *KillFlags {
	return &KillFlags{Dir: filepath.Join(repo.UwfDir(), "kill")}
}

func (k *KillFlags) path(id chain.ThreadID) string { return filepath.Join(k.Dir, string(id)) }

// Raise sets the thread's kill flag with a reason.
func (k *KillFlags) Raise(id chain.ThreadID, reason string) error {
	if err := os.MkdirAll(k.Dir, 0o755); err != nil {
		return fmt.Errorf("raise the kill flag of thread %s: %w", id, err)
	}
	if err := atomicfile.Write(k.path(id), []byte(reason), 0o644); err != nil {
		return fmt.Errorf("raise the kill flag of thread %s: %w", id, err)
	}
	return nil
}

// Raised reports whether the thread's flag is up, and its reason.
func (k *KillFlags) Raised(id chain.ThreadID) (reason string, ok bool) {
	b, err := os.ReadFile(k.path(id))
	if err != nil {
		return "", false
	}
	reason = strings.TrimSpace(string(b))
	if reason == "" {
		reason = "cancelled while running"
	}
	return reason, true
}

// Clear lowers the thread's flag; a flag that is not up is not an error.
func (k *KillFlags) Clear(id chain.ThreadID) error {
	if err := os.Remove(k.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear the kill flag of thread %s: %w", id, err)
	}
	return nil
}

// killPoll is how often a running step looks at its kill flag.
const killPoll = 100 * time.Millisecond

// CancelledError is a step stopped by `thread cancel`: the thread now ends
// in a cancel commit (Commit) and the agent's work, if any, was discarded.
type CancelledError struct {
	Thread chain.ThreadID
	Reason string
	Commit gitobj.Hash
}

func (e *CancelledError) Error() string {
	return fmt.Sprintf("thread %s was cancelled while stepping (%s); the step was discarded", e.Thread, e.Reason)
}

// checkKill ends the thread with a cancel commit when its kill flag is up,
// or the flag of a thread running around it (a child's parent; ctx says
// which): the ancestor's own flag stays up for its step to see. The caller
// holds the thread lock.
func (e *Engine) checkKill(ctx context.Context, t *chain.Thread) error {
	if e.Kill == nil {
		return nil
	}
	reason, own := e.Kill.Raised(t.ID)
	ok := own
	for _, id := range ancestors(ctx) {
		if ok {
			break
		}
		var r string
		if r, ok = e.Kill.Raised(id); ok {
			reason = "parent thread " + string(id) + " was cancelled: " + r
		}
	}
	if !ok {
		return nil
	}
	// The cancellation must be recorded even when the step's context is
	// done (the agent was stopped through it).
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	fresh, err := e.Repo.Thread(rctx, t.ID)
	if err != nil {
		return err
	}
	ce := &CancelledError{Thread: t.ID, Reason: reason}
	if fresh.Head.Kind != chain.KindCancel {
		entry, err := e.Repo.Cancel(rctx, fresh, reason)
		if err != nil {
			return fmt.Errorf("record the cancellation of thread %s: %w", t.ID, err)
		}
		ce.Commit = entry.Commit
	} else {
		ce.Commit = fresh.Head.Commit
	}
	if own {
		if err := e.Kill.Clear(t.ID); err != nil {
			return err
		}
	}
	return ce
}

// watchKill returns a context that is cancelled when the kill flag of the
// thread, or of a thread running around it (ctx says which), goes up, and
// the function that stops watching.
func (e *Engine) watchKill(ctx context.Context, id chain.ThreadID) (context.Context, func()) {
	if e.Kill == nil {
		return ctx, func() {}
	}
	ids := append([]chain.ThreadID{id}, ancestors(ctx)...)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(killPoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				for _, id := range ids {
					if _, ok := e.Kill.Raised(id); ok {
						cancel()
						return
					}
				}
			}
		}
	}()
	return ctx, func() { close(done); cancel() }
}
