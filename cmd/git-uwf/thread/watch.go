package thread

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/internal/steplog"
)

// watchPoll is how often watch looks at the log and the step lock.
const watchPoll = 150 * time.Millisecond

// WatchOptions are the inputs of `thread watch`.
type WatchOptions struct {
	IO   *iostreams.IOStreams
	Repo func(context.Context) (*chain.Repo, error)

	Thread string
	// Follow keeps following step after step; Last prints the last
	// step's log and returns.
	Follow bool
	Last   bool
}

func newCmdWatch(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Usage:     "Follow the agent output of a thread's running step, from any terminal",
		ArgsUsage: "<thread>",
		Description: "Prints what the agent of the thread's running step writes to its stderr, as it is\n" +
			"written (the step log in $GIT_COMMON_DIR/uwf/logs/<thread>.log), and exits when the\n" +
			"step ends. When no step is running it waits for the next one. --follow keeps\n" +
			"following step after step until interrupted; --last prints the last step's log and exits.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep following the next steps until interrupted"},
			&cli.BoolFlag{Name: "last", Usage: "print the last step's log and exit"},
		},
		Action: func(c *cli.Context) error {
			arg, err := cmdutil.OneArg(c, "thread id")
			if err != nil {
				return err
			}
			return watchRun(c.Context, &WatchOptions{IO: f.IO, Repo: f.Repo, Thread: arg, Follow: c.Bool("follow"), Last: c.Bool("last")})
		},
	}
}

func watchRun(ctx context.Context, opts *WatchOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	id, err := resolveThread(ctx, repo, opts.Thread)
	if err != nil {
		return err
	}
	path := steplog.Path(repo.UwfDir(), string(id))
	running := func() bool { return slices.Contains(repo.RunningThreads(), id) }
	if opts.Last {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("thread %s has no step log yet: no step has run here since git-uwf started writing them", id)
		}
		if err != nil {
			return err
		}
		_, err = opts.IO.Out.Write(data)
		return err
	}
	before, _ := os.Stat(path)
	started := func() bool {
		if running() {
			return true
		}
		now, err := os.Stat(path)
		return err == nil && (before == nil || !os.SameFile(before, now))
	}
	if !started() {
		fmt.Fprintf(opts.IO.ErrOut, "waiting for a step of thread %s to start (Ctrl-C stops)\n", id)
	}
	for {
		for !started() {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(watchPoll):
			}
		}
		if err := steplog.Follow(ctx, path, opts.IO.Out, watchPoll, func() bool { return !running() }); err != nil {
			return err
		}
		if !opts.Follow || ctx.Err() != nil {
			return nil
		}
		before, _ = os.Stat(path)
	}
}
