package thread

import (
	"context"
	"fmt"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/engine/scheduler"
)

// stepLimit returns what takes a slot of the thread's workflow limit
// before each step (and returns the function that frees it). Without any
// configured limit the thread is not even read.
func stepLimit(ctx context.Context, f *cmdutil.Factory, repo *chain.Repo, cfg *config.Config, id chain.ThreadID) func(context.Context) (func(), error) {
	none := func(context.Context) (func(), error) { return func() {}, nil }
	if len(cfg.Workflows) == 0 {
		return none
	}
	t, err := repo.CachedThread(ctx, id)
	if err != nil {
		// The engine reports the unreadable thread itself.
		return none
	}
	wf := t.Workflow.Name
	lim := cfg.Limit(wf)
	if !lim.Limited() {
		return none
	}
	limiter := scheduler.NewLimiter(repo.UwfDir())
	return func(ctx context.Context) (func(), error) {
		return limiter.Acquire(ctx, wf, lim, func() {
			fmt.Fprintf(f.IO.ErrOut, "waiting: workflow %s runs %d step(s) at once (workflows.%s.concurrency)\n", wf, lim.Concurrency, wf)
		})
	}
}
