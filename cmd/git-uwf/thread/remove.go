package thread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/engine"
	"github.com/git-uwf/git-uwf/engine/scheduler"
	"github.com/git-uwf/git-uwf/internal/steplog"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// removeOutput is the machine-readable result of `thread remove`.
type removeOutput struct {
	Removed []chain.RemovedThread `json:"removed"`
	// Remote is the deletion on --remote (null without it).
	Remote *uwfsync.Report `json:"remote"`
}

// RemoveOptions are the inputs of `thread remove`.
type RemoveOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Threads []string
	// Remote, when set, is the remote the threads are deleted on first.
	Remote string
}

func newCmdRemove(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Aliases:   []string{"rm"},
		Usage:     "Delete threads (their thread and attempts refs); --remote also deletes them there",
		ArgsUsage: "<thread>…",
		Description: "Deletes refs/uwf/threads/<id> and refs/uwf/attempts/<id> of each thread in one\n" +
			"transaction; a thread being stepped is refused and nothing is removed. With --remote R\n" +
			"they are first deleted on R in one atomic push whose deletions only apply if R still\n" +
			"holds what it was just listed with. Without --remote, a thread R still has comes back\n" +
			"with the next git uwf fetch.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "remote", Usage: "also delete the threads on `REMOTE` (a configured git remote)"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cmdutil.FlagErrorf("missing thread id")
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return removeRun(c.Context, &RemoveOptions{IO: f.IO, Repo: f.Repo, Format: format,
				Threads: c.Args().Slice(), Remote: c.String("remote")})
		},
	}
}

func removeRun(ctx context.Context, opts *RemoveOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	ids, err := resolveThreads(ctx, repo, opts.Threads)
	if err != nil {
		return err
	}
	out := removeOutput{}
	var before func([]chain.RemovedThread) error
	if remote := opts.Remote; remote != "" {
		before = func(removed []chain.RemovedThread) error {
			var names []string
			for _, r := range removed {
				names = append(names, chain.ThreadsPrefix+string(r.Thread), chain.AttemptsPrefix+string(r.Thread))
			}
			rep, err := uwfsync.DeleteRemote(ctx, repo, remote, names)
			if err != nil {
				return err
			}
			if rep.Failed() {
				for _, res := range rep.Results {
					if res.Failed() {
						return fmt.Errorf("%s on %s: %s; nothing was removed", res.Ref, remote, res.Reason)
					}
				}
			}
			out.Remote = rep
			return nil
		}
	}
	removed, err := repo.RemoveThreads(ctx, ids, before)
	if err != nil {
		return busyExit(err)
	}
	out.Removed = removed
	for _, r := range removed {
		if err := removeLocalFiles(repo, r.Thread); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %v\n", err)
		}
	}
	return cmdutil.Print(opts.IO, opts.Format, out, func(w io.Writer) error {
		for _, r := range removed {
			names := make([]string, 0, len(r.Refs))
			for name := range r.Refs {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range slices.Backward(names) {
				fmt.Fprintf(w, "removed %s (was %s)\n", name, r.Refs[name][:12])
			}
		}
		if out.Remote != nil {
			for _, res := range out.Remote.Results {
				if res.Kind == uwfsync.KindDeleted {
					fmt.Fprintf(w, "deleted %s on %s (was %s)\n", res.Ref, out.Remote.Remote, res.Old[:12])
				}
			}
		}
		return nil
	})
}

// removeLocalFiles deletes what this machine keeps of a removed thread
// outside git: its step log, its background records, logs and outcomes,
// and its kill flag.
func removeLocalFiles(repo *chain.Repo, id chain.ThreadID) error {
	var errs []error
	if err := os.Remove(steplog.Path(repo.UwfDir(), string(id))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	errs = append(errs, scheduler.NewBackgrounds(repo.UwfDir()).Remove(string(id)), engine.NewKillFlags(repo).Clear(id))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("thread %s removed, but not all of its local files: %w", id, err)
	}
	return nil
}
