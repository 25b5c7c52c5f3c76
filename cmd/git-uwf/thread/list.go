package thread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/internal/text"
)

// ListOptions are the inputs of `thread list`.
type ListOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Getwd  func() (string, error)
	Getenv func(string) string
	Now    func() time.Time
	Format cmdutil.Format

	List chain.ListOptions
	// Here keeps only the threads started on the branch checked out in
	// the working directory.
	Here bool
}

func newCmdList(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "List threads, newest first (active ones unless --all)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "include completed and cancelled threads"},
			&cli.BoolFlag{Name: "here", Usage: "only threads started on the current branch"},
			&cli.StringFlag{Name: "status", Usage: "only threads in these `STATES` (comma-separated: idle,running,suspended,completed,cancelled,failed; end = completed)"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.FlagErrorf("thread list takes no arguments")
			}
			opts := &ListOptions{IO: f.IO, Repo: f.Repo, Getwd: f.Getwd, Getenv: f.Getenv, Now: f.Now,
				List: chain.ListOptions{All: c.Bool("all")}, Here: c.Bool("here")}
			if s := c.String("status"); s != "" {
				for _, part := range strings.Split(s, ",") {
					if strings.TrimSpace(part) == "active" {
						opts.List.Statuses = append(opts.List.Statuses, chain.StatusIdle, chain.StatusRunning, chain.StatusSuspended, chain.StatusFailed)
						continue
					}
					st, err := chain.ParseStatus(strings.TrimSpace(part))
					if err != nil {
						return cmdutil.FlagErrorf("--status: %v", err)
					}
					opts.List.Statuses = append(opts.List.Statuses, st)
				}
			}
			var err error
			if opts.Format, err = cmdutil.FormatOf(c); err != nil {
				return err
			}
			return listRun(c.Context, opts)
		},
	}
}

func listRun(ctx context.Context, opts *ListOptions) error {
	var keep func(chain.Summary) bool
	if opts.Here {
		wd, err := opts.Getwd()
		if err != nil {
			return err
		}
		here := workTreeCode(ctx, wd)
		if here.Branch == "" {
			return errors.New("thread list --here: HEAD is not on a branch (detached or outside a work tree)")
		}
		keep = func(s chain.Summary) bool { return s.Branch == here.Branch }
	}
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	// The refs are parsed once per process: List reads them again for free.
	refs, err := repo.ListRefs(ctx, chain.ThreadsPrefix)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer cmdutil.RelaxGCWithin(opts.Getenv, listMemoryLimit(len(refs)))()
	list, err := repo.List(ctx, opts.List)
	if err != nil {
		return err
	}
	if keep != nil {
		list = slices.DeleteFunc(list, func(s chain.Summary) bool { return !keep(s) })
	}
	now := opts.Now()
	return cmdutil.Print(opts.IO, opts.Format, list, func(w io.Writer) error {
		if len(list) == 0 {
			if opts.List.All {
				fmt.Fprintln(w, "no threads yet: start one with git uwf thread start <workflow> -p \"<task>\"")
			} else {
				fmt.Fprintln(w, "no active threads (git uwf thread list --all shows finished ones)")
			}
			return nil
		}
		// A Table, not a tabwriter: the same layout, at a fraction of the
		// cost for thousands of threads.
		t := cmdutil.NewTable("THREAD", "WORKFLOW", "STATUS", "NEXT", "FORK", "UPDATED", "TASK")
		t.Grow(len(list))
		if opts.IO.ColorEnabled() {
			t.Style(2, cmdutil.ColorStatus)
		}
		for _, s := range list {
			next := deref(s.CurrentRole)
			if s.Status == chain.StatusSuspended {
				next = "(" + deref(s.SuspendedRole) + ")"
			}
			if next == "" {
				next = "-"
			}
			fork := "-"
			if s.Fork {
				fork = "fork"
			}
			t.Row(string(s.Thread), s.Workflow, string(s.Status), next, fork, chain.FormatAgo(now, s.UpdatedAt), text.FirstLine(s.Prompt, 50))
		}
		_, err := t.WriteTo(w)
		return err
	})
}

// listMemoryLimit is the soft memory limit of a listing of n threads. A
// cold listing keeps about 1.1 KiB a thread live (the summaries, their
// cache lines, the refs); the limit leaves room for most as much garbage
// again and for the runtime's own, so that the collector neither lets the
// heap grow to a fixed ceiling (48 MiB, which was most of a 10,000-thread
// listing's 58 MiB) nor runs all the time when the live heap passes it (at
// 100,000 threads, 60 % of the process's CPU went to the collector and to
// returning memory to the system). The limit covers only the Go heap: a
// cold listing reads the pack files in process, and the mapped pages of
// their indexes (about 300 bytes a thread) count towards the process's
// resident memory beside it, so they are left out; the pack data is read
// into two 64 KiB buffers on the heap. A higher limit is no faster: the
// heap grows into it, and each fresh page costs a page fault (a limit of
// 34 MiB at 10,000 threads: 7,800 faults against 6,600, 41 against 34
// MiB peak).
func listMemoryLimit(n int) int64 {
	return max(26<<20, 2<<20+int64(n)*1900)
}
