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
	limit := workflowLimit(f, repo, cfg)
	if limit == nil {
		return none
	}
	t, err := repo.CachedThread(ctx, id)
	if err != nil {
		// The engine reports the unreadable thread itself.
		return none
	}
	wf := t.Workflow.Name
	return func(ctx context.Context) (func(), error) { return limit(ctx, wf) }
}

// workflowLimit returns what takes a slot of a workflow's limit (and
// returns the function that frees it; at once for a workflow without a
// limit), nil when no workflow has one. The engine uses it for the steps
// of child threads (engine.Engine.Limit).
func workflowLimit(f *cmdutil.Factory, repo *chain.Repo, cfg *config.Config) func(context.Context, string) (func(), error) {
	if len(cfg.Workflows) == 0 {
		return nil
	}
	limiter := scheduler.NewLimiter(repo.UwfDir())
	return func(ctx context.Context, wf string) (func(), error) {
		lim := cfg.Limit(wf)
		if !lim.Limited() {
			return func() {}, nil
		}
		return limiter.Acquire(ctx, wf, lim, func() {
			fmt.Fprintf(f.IO.ErrOut, "waiting: workflow %s runs %d step(s) at once (workflows.%s.concurrency)\n", wf, lim.Concurrency, wf)
		})
	}
}
