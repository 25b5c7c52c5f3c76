package thread

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// exportBundleRun is `thread export <thread>… --bundle FILE`.
func exportBundleRun(ctx context.Context, opts *ExportOptions) error {
	file, err := cmdutil.AbsPath(opts.Getwd, opts.Bundle)
	if err != nil {
		return err
	}
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	ids, err := resolveThreads(ctx, repo, opts.Threads)
	if err != nil {
		return err
	}
	// The threads and, transitively, the child threads that played their
	// roles.
	var threads []*chain.Thread
	seen := map[chain.ThreadID]bool{}
	for len(ids) > 0 {
		id := ids[0]
		ids = ids[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		t, err := repo.Thread(ctx, id)
		if err != nil {
			return err
		}
		threads = append(threads, t)
		children, err := repo.Children(ctx, t)
		if err != nil {
			return err
		}
		if active, err := repo.ActiveChild(ctx, t); err == nil && active != nil {
			children = append(children, active.ID)
		}
		ids = append(ids, children...)
	}
	out, err := uwfsync.ExportBundle(ctx, repo, file, threads)
	if err != nil {
		return err
	}
	return cmdutil.Print(opts.IO, opts.Format, out, func(w io.Writer) error {
		names := make([]string, 0, len(out.Refs))
		for name := range out.Refs {
			names = append(names, name)
		}
		slices.Sort(names)
		fmt.Fprintf(w, "wrote %s with %d refs:\n", opts.Bundle, len(names))
		for _, name := range names {
			fmt.Fprintf(w, "  %s %s\n", out.Refs[name][:12], name)
		}
		return nil
	})
}
