package thread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/engine/scheduler"
	"github.com/git-uwf/git-uwf/review"
)

// loadThread opens the repository with openRepo, resolves a thread
// argument (full id or prefix) and reads the thread, from the caches when
// they hold its head.
func loadThread(ctx context.Context, openRepo func(context.Context) (*chain.Repo, error), arg string) (*chain.Repo, *chain.Thread, error) {
	repo, err := openRepo(ctx)
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

// threadView is what the views of a whole thread (show, graph, export)
// start from: the thread, its derived state and its chain.
type threadView struct {
	repo   *chain.Repo
	thread *chain.Thread
	state  chain.State
	// entries is the chain from the start (entries[0]) to the head.
	entries []*chain.Entry
}

// viewThread opens the repository with openRepo, reads the thread a thread
// argument names (see loadThread), its state and its chain.
func viewThread(ctx context.Context, openRepo func(context.Context) (*chain.Repo, error), arg string) (*threadView, error) {
	repo, t, err := loadThread(ctx, openRepo, arg)
	if err != nil {
		return nil, err
	}
	st, err := repo.State(ctx, t)
	if err != nil {
		return nil, err
	}
	entries, err := repo.Chain(ctx, t.Head.Commit)
	if err != nil {
		return nil, err
	}
	return &threadView{repo: repo, thread: t, state: st, entries: entries}, nil
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

// loadStep opens the repository with openRepo and resolves a step
// argument (alias, commit or a code commit with an Uwf-Step trailer); notes
// go to errOut.
func loadStep(ctx context.Context, errOut io.Writer, openRepo func(context.Context) (*chain.Repo, error), arg string) (*chain.Repo, *chain.Entry, error) {
	repo, err := openRepo(ctx)
	if err != nil {
		return nil, nil, err
	}
	e, err := findStep(ctx, errOut, repo, arg)
	if err != nil {
		return nil, nil, err
	}
	return repo, e, nil
}

// printMarkdownTo prints a markdown document: as it is, or as
// {"markdown": …} with --format json|yaml.
func printMarkdownTo(ios *iostreams.IOStreams, format cmdutil.Format, md string) error {
	return cmdutil.Print(ios, format, map[string]string{"markdown": md}, func(w io.Writer) error {
		_, err := io.WriteString(w, md)
		return err
	})
}

// findStep resolves a step argument. A code commit follows its Uwf-Step
// trailers the way git uwf review does: every trailer line (a squash keeps
// several; the first that resolves is shown), and on a thread forked by a
// sync, the line that holds the step.
func findStep(ctx context.Context, errOut io.Writer, repo *chain.Repo, arg string) (*chain.Entry, error) {
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
			fmt.Fprintf(errOut, "note: commit %s names %d steps; showing the one of trailer %q (git uwf review lists them all)\n", arg, len(links), links[i].Trailer)
		}
		return e, nil
	}
	return nil, errors.New(links[0].Error)
}
