package thread

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/engine/scheduler"
	"github.com/git-uwf/git-uwf/review"
)

// openThread resolves a thread argument (full id or prefix) and reads it,
// from the caches when they hold its head.
func openThread(ctx context.Context, f *cmdutil.Factory, arg string) (*chain.Repo, *chain.Thread, error) {
	repo, err := f.Repo(ctx)
	if err != nil {
		return nil, nil, err
	}
	id, err := resolveThread(ctx, repo, arg)
	if err != nil {
		return nil, nil, err
	}
	t, err := repo.CachedThread(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return repo, t, nil
}

// resolveThread is repo.ResolveThread with a "did you mean" for an
// unknown id that is one or two characters off an existing one.
func resolveThread(ctx context.Context, repo *chain.Repo, arg string) (chain.ThreadID, error) {
	id, err := repo.ResolveThread(ctx, arg)
	if !errors.Is(err, chain.ErrUnknownThread) {
		return id, err
	}
	ids, _, lerr := repo.ThreadIDs(ctx)
	if lerr != nil {
		return id, err
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = string(id)
	}
	if hint := cmdutil.DidYouMean(strings.ToUpper(strings.TrimSpace(arg)), names); hint != "" {
		return id, fmt.Errorf("%w%s", err, hint)
	}
	return id, err
}

// resolveThreads resolves thread arguments (full ids or prefixes, with a
// "did you mean" for an unknown one), in order.
func resolveThreads(ctx context.Context, repo *chain.Repo, args []string) ([]chain.ThreadID, error) {
	ids := make([]chain.ThreadID, 0, len(args))
	for _, arg := range args {
		id, err := resolveThread(ctx, repo, arg)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// busyExit turns a held thread lock or a step refused by its workflow's
// limit into exit code 75 (retryable).
func busyExit(err error) error {
	if errors.Is(err, chain.ErrBusy) || errors.Is(err, scheduler.ErrDropped) {
		return &cmdutil.ExitError{Code: cmdutil.ExitLocked, Err: err}
	}
	return err
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// threadCommand is what most thread verbs start from: the one thread
// argument, the output format, the repository and the thread.
type threadCommand struct {
	format cmdutil.Format
	repo   *chain.Repo
	thread *chain.Thread
}

func parseThreadCommand(c *cli.Context, f *cmdutil.Factory) (*threadCommand, error) {
	arg, err := cmdutil.OneArg(c, "thread id")
	if err != nil {
		return nil, err
	}
	format, err := cmdutil.FormatOf(c)
	if err != nil {
		return nil, err
	}
	repo, t, err := openThread(c.Context, f, arg)
	if err != nil {
		return nil, err
	}
	return &threadCommand{format: format, repo: repo, thread: t}, nil
}

// stepCommand is the same for verbs that take one step (alias, commit or a
// code commit with an Uwf-Step trailer).
type stepCommand struct {
	format cmdutil.Format
	repo   *chain.Repo
	entry  *chain.Entry
}

func parseStepCommand(c *cli.Context, f *cmdutil.Factory) (*stepCommand, error) {
	arg, err := cmdutil.OneArg(c, "step (alias or commit)")
	if err != nil {
		return nil, err
	}
	format, err := cmdutil.FormatOf(c)
	if err != nil {
		return nil, err
	}
	repo, err := f.Repo(c.Context)
	if err != nil {
		return nil, err
	}
	e, err := findStep(c.Context, f, repo, arg)
	if err != nil {
		return nil, err
	}
	return &stepCommand{format: format, repo: repo, entry: e}, nil
}

// findStep resolves a step argument. A code commit follows its Uwf-Step
// trailers the way git uwf review does: every trailer line (a squash keeps
// several; the first that resolves is shown), and on a thread forked by a
// sync, the line that holds the step.
func findStep(ctx context.Context, f *cmdutil.Factory, repo *chain.Repo, arg string) (*chain.Entry, error) {
	links, entries, err := review.CodeCommitSteps(ctx, repo, arg)
	switch {
	case errors.Is(err, review.ErrNotCodeCommit):
		return repo.FindStep(ctx, arg)
	case err != nil:
		return nil, err
	}
	for i, e := range entries {
		if e == nil {
			continue
		}
		if len(links) > 1 {
			fmt.Fprintf(f.IO.ErrOut, "note: commit %s names %d steps; showing the one of trailer %q (git uwf review lists them all)\n", arg, len(links), links[i].Trailer)
		}
		return e, nil
	}
	return nil, errors.New(links[0].Error)
}
