// Package worker implements `git uwf worker <remote>`: step the remote's
// runnable threads from any machine, claiming each through a lease ref on
// the remote (see engine/worker).
//
// The action parses the command line into Options and calls
// workerRun(ctx, opts), as every command verb does.
package worker

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/thread"
	"github.com/git-uwf/git-uwf/engine/worker"
)

// Options are the inputs of `worker`.
type Options struct {
	IO         *iostreams.IOStreams
	Repo       func(context.Context) (*chain.Repo, error)
	Getwd      func() (string, error)
	Environ    func() []string
	Executable func() (string, error)
	Now        func() time.Time

	Remote string
	// Jobs is how many threads are stepped at once (0: the number of CPUs).
	Jobs     int
	Workflow string
	// Agent and Timeout are passed on to every step ("" and 0: the
	// configuration's).
	Agent     string
	Timeout   time.Duration
	Lease     time.Duration
	UntilIdle bool
	// Name is the worker's name in its leases ("": host:pid).
	Name string
}

// NewCmdWorker returns the `worker` command.
func NewCmdWorker(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "worker",
		Usage: "Step the runnable threads of a remote, claiming each with a lease on the remote",
		Description: "Fetches the remote, claims a runnable thread by creating refs/uwf/leases/<thread> there with an\n" +
			"atomic, non-forced push, runs one step, then pushes the new head and deletes the lease in one atomic\n" +
			"push, and repeats. Run one per machine, CI job or pod; they coordinate only through the remote.",
		ArgsUsage: "<remote>",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "step `N` threads at once (default: the number of CPUs)"},
			&cli.StringFlag{Name: "workflow", Usage: "only threads of workflow `NAME`"},
			&cli.StringFlag{Name: "agent", Usage: "agent `COMMAND` line or configured alias (overrides the configuration)"},
			&cli.DurationFlag{Name: "timeout", Usage: "kill an agent after `DURATION`"},
			&cli.DurationFlag{Name: "lease", Value: worker.DefaultLease, Usage: "a claim lasts `DURATION` unless renewed (it is renewed while the step runs; at most 12h)"},
			&cli.BoolFlag{Name: "until-idle", Usage: "exit 0 once nothing is runnable or leased on the remote"},
			&cli.StringFlag{Name: "name", Usage: "the worker's `NAME` in its leases (default: host:pid)"},
		},
		Action: func(c *cli.Context) error {
			remote, err := cmdutil.OneArg(c, "remote")
			if err != nil {
				return err
			}
			if c.IsSet("jobs") && c.Int("jobs") < 1 {
				return cmdutil.FlagErrorf("-j must be a positive number")
			}
			if c.Duration("lease") < time.Second || c.Duration("lease") > worker.MaxLease {
				return cmdutil.FlagErrorf("--lease must be between 1s and %s", worker.MaxLease)
			}
			opts := &Options{IO: f.IO, Repo: f.Repo, Getwd: f.Getwd, Environ: f.Environ, Executable: f.Executable, Now: f.Now,
				Remote: remote, Jobs: c.Int("jobs"), Workflow: c.String("workflow"), Agent: c.String("agent"),
				Lease: c.Duration("lease"), UntilIdle: c.Bool("until-idle"), Name: c.String("name")}
			if c.IsSet("timeout") {
				opts.Timeout = c.Duration("timeout")
			}
			return workerRun(c.Context, opts)
		},
	}
}

func workerRun(ctx context.Context, opts *Options) error {
	remote := opts.Remote
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	self, err := opts.Executable()
	if err != nil {
		return fmt.Errorf("find the git-uwf executable: %w", err)
	}
	dir, err := opts.Getwd()
	if err != nil {
		return err
	}
	extra := []string{"--leased"}
	if opts.Agent != "" {
		extra = append(extra, "--agent", opts.Agent)
	}
	if opts.Timeout != 0 {
		extra = append(extra, "--timeout", opts.Timeout.String())
	}
	jobs := opts.Jobs
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	w := &worker.Worker{Repo: repo, Remote: remote, Name: opts.Name, Lease: opts.Lease,
		Workflow: opts.Workflow, Log: opts.IO.ErrOut, Now: opts.Now,
		Step: func(ctx context.Context, id chain.ThreadID) worker.Outcome {
			// A thread whose child suspended comes back "suspended"
			// (exit 4), not failed.
			o := thread.StepProcess(ctx, self, dir, opts.Environ(), string(id), extra)
			return worker.Outcome{Stepped: o.Stepped, Status: o.Status, Err: o.Err}
		},
	}
	st, err := w.Run(ctx, jobs, opts.UntilIdle)
	fmt.Fprintf(opts.IO.ErrOut, "worker %s: %d step(s) pushed, %d failed, %d discarded (lease lost)", w.Name, st.Steps, st.Failed, st.Lost)
	if st.Unpushed > 0 {
		fmt.Fprintf(opts.IO.ErrOut, ", %d kept here unpushed (%s unreachable)", st.Unpushed, remote)
	}
	fmt.Fprintln(opts.IO.ErrOut)
	if err != nil {
		if ctx.Err() != nil {
			return cmdutil.ErrCancelled
		}
		return err
	}
	if st.Failed > 0 {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("%d step(s) failed", st.Failed)}
	}
	if st.Unpushed > 0 {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf(
			"%d step(s) could not be pushed to %s and are kept in this clone: push them with git uwf push %s", st.Unpushed, remote, remote)}
	}
	return nil
}
