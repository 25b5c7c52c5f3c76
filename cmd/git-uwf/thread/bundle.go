package thread

import (
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// exportBundle is `thread export <thread>… --bundle FILE`.
func exportBundle(c *cli.Context, f *cmdutil.Factory) error {
	if c.NArg() == 0 {
		return cmdutil.FlagErrorf("missing thread id")
	}
	format, err := cmdutil.FormatOf(c)
	if err != nil {
		return err
	}
	file, err := cmdutil.AbsPath(f.Getwd, c.String("bundle"))
	if err != nil {
		return err
	}
	repo, err := f.Repo(c.Context)
	if err != nil {
		return err
	}
	ids, err := resolveThreads(c.Context, repo, c.Args().Slice())
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
		t, err := repo.Thread(c.Context, id)
		if err != nil {
			return err
		}
		threads = append(threads, t)
		children, err := repo.Children(c.Context, t)
		if err != nil {
			return err
		}
		if active, err := repo.ActiveChild(c.Context, t); err == nil && active != nil {
			children = append(children, active.ID)
		}
		ids = append(ids, children...)
	}
	out, err := uwfsync.ExportBundle(c.Context, repo, file, threads)
	if err != nil {
		return err
	}
	return cmdutil.Print(f.IO, format, out, func(w io.Writer) error {
		names := make([]string, 0, len(out.Refs))
		for name := range out.Refs {
			names = append(names, name)
		}
		slices.Sort(names)
		fmt.Fprintf(w, "wrote %s with %d refs:\n", c.String("bundle"), len(names))
		for _, name := range names {
			fmt.Fprintf(w, "  %s %s\n", out.Refs[name][:12], name)
		}
		return nil
	})
}
