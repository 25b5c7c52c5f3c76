// Package worker implements `git uwf worker <remote>`: step the remote's
// runnable threads from any machine, claiming each through a lease ref on
// the remote (see engine/worker).
package worker

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/thread"
	"github.com/git-uwf/git-uwf/engine/worker"
)

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
			return run(c.Context, f, c, remote)
		},
	}
}

func run(ctx context.Context, f *cmdutil.Factory, c *cli.Context, remote string) error {
	repo, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	self, err := f.Executable()
	if err != nil {
		return fmt.Errorf("find the git-uwf executable: %w", err)
	}
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	extra := []string{"--leased"}
	if a := c.String("agent"); a != "" {
		extra = append(extra, "--agent", a)
	}
	if c.IsSet("timeout") {
		extra = append(extra, "--timeout", c.Duration("timeout").String())
	}
	jobs := c.Int("jobs")
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	w := &worker.Worker{Repo: repo, Remote: remote, Name: c.String("name"), Lease: c.Duration("lease"),
		Workflow: c.String("workflow"), Log: f.IO.ErrOut, Now: f.Now,
		Step: func(ctx context.Context, id chain.ThreadID) worker.Outcome {
			o := thread.StepProcess(ctx, self, dir, f.Environ(), string(id), extra)
			return worker.Outcome{Stepped: o.Stepped, Status: o.Status, Err: o.Err}
		},
	}
	st, err := w.Run(ctx, jobs, c.Bool("until-idle"))
	fmt.Fprintf(f.IO.ErrOut, "worker %s: %d step(s) pushed, %d failed, %d discarded (lease lost)", w.Name, st.Steps, st.Failed, st.Lost)
	if st.Unpushed > 0 {
		fmt.Fprintf(f.IO.ErrOut, ", %d kept here unpushed (%s unreachable)", st.Unpushed, remote)
	}
	fmt.Fprintln(f.IO.ErrOut)
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
