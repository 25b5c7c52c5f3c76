// Package serveexec is `git uwf serve` as git-uwf carries it: the command's
// definition (name, flags, help), which the viewer program git-uwf-serve
// shares, and an action that runs that program. The viewer (package web,
// goldmark, the HTTP server) is a program of its own so that the other
// commands do not pay for its package initialisation at every start (see
// docs/architecture.md, "Why a second binary").
package serveexec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/internal/lockedexec"
)

// Program is the name of the viewer program.
const Program = "git-uwf-serve"

// DefaultAddr is where the viewer listens unless --addr says otherwise:
// loopback only.
const DefaultAddr = "127.0.0.1:7733"

// Command returns the definition of `serve` without an action: its name,
// help and flags. git-uwf-serve adds the action that serves; NewCmdServe
// adds the one that runs git-uwf-serve. Help, completion and the man page
// read it from here.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "Browse threads in a local read-only web viewer",
		Description: "Serves the repository's threads at http://127.0.0.1:7733/ until interrupted: the thread\n" +
			"list (filters, search, paging), each thread's steps, deliverables, failed attempts, forks\n" +
			"and its path through the workflow, and a running step's output as it is written.\n" +
			"The viewer is the program git-uwf-serve, installed next to git-uwf; everything it shows\n" +
			"is embedded in it, so it works offline. Only GET and HEAD are answered.\n" +
			"A port of 0 picks a free one. An address that is not loopback is reachable by others.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: DefaultAddr, Usage: "listen on `HOST:PORT`"},
			&cli.BoolFlag{Name: "open", Usage: "open the viewer in the default browser"},
		},
	}
}

// NewCmdServe returns the `serve` command of git-uwf: it runs git-uwf-serve
// with the command's arguments as they were given (that program parses
// them, and prints the help), in the directory git uwf runs in (-C), on the
// same streams and environment, and exits with its exit code.
func NewCmdServe(f *cmdutil.Factory) *cli.Command {
	cmd := Command()
	cmd.SkipFlagParsing = true
	cmd.Action = func(c *cli.Context) error {
		prog, err := find(os.Executable, exec.LookPath)
		if err != nil {
			return err
		}
		return run(c.Context, f, prog, c.Args().Slice())
	}
	return cmd
}

// find returns the viewer program: the one next to the running executable
// (symbolic links resolved), else the one on PATH. Only where git-uwf is
// installed decides it, never the repository or its configuration.
func find(executable func() (string, error), lookPath func(string) (string, error)) (string, error) {
	next, looked := cmdutil.Companion(executable, Program)
	if next != "" {
		return next, nil
	}
	if p, err := lookPath(Program); err == nil {
		return p, nil
	}
	where := "next to git-uwf"
	if looked != "" {
		where = "at " + looked
	}
	return "", fmt.Errorf("the web viewer is a program of its own, %s, and it is not installed (looked %s and on PATH)\n"+
		"install it with git-uwf: `make install` in a git-uwf checkout, or `go install ./cmd/git-uwf ./cmd/git-uwf-serve ./cmd/git-uwf-agent-supervisor ./cmd/git-uwf-llm` there", Program, where)
}

// run runs prog with args until it exits and returns its outcome: nil for
// exit 0, else a *cmdutil.ExitError with its code (128+N when signal N
// ended it); the program has said what went wrong.
//
// prog runs in a process group of its own, so a Ctrl-C at the terminal
// reaches it once, through git-uwf, which passes each SIGINT and SIGTERM
// it gets on. When ctx ends without such a signal (a caller cancelling),
// prog gets a SIGTERM. On Linux the kernel also sends SIGTERM if git-uwf
// dies without passing anything on, so no viewer is left behind.
func run(ctx context.Context, f *cmdutil.Factory, prog string, args []string) error {
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = f.IO.In, f.IO.Out, f.IO.ErrOut
	cmd.SysProcAttr = sysProcAttr()

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	// Started from a thread of its own: its parent-death signal must not
	// fire while git-uwf runs on.
	done, err := lockedexec.Start(cmd)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}

	// The first signal usually also ends ctx (root.Main cancels on it):
	// whichever is seen first is passed on, and the other is not, so the
	// viewer shuts down cleanly. A second signal is passed on too and
	// ends the viewer the default way, as it would have ended git-uwf.
	cancelled := ctx.Done()
	signalled, covered := false, false
	for {
		select {
		case s := <-sigs:
			if covered {
				covered = false
				continue
			}
			signalled = true
			_ = cmd.Process.Signal(s)
		case <-cancelled:
			cancelled = nil
			if !signalled {
				covered = true
				_ = cmd.Process.Signal(syscall.SIGTERM)
			}
		case err := <-done:
			return exitError(err)
		}
	}
}

// exitError turns cmd.Wait's error into the command's outcome.
func exitError(err error) error {
	if err == nil {
		return nil
	}
	ee, ok := errors.AsType[*exec.ExitError](err)
	if !ok {
		return fmt.Errorf("serve: %w", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &cmdutil.ExitError{Code: 128 + int(ws.Signal())}
	}
	return &cmdutil.ExitError{Code: ee.ExitCode()}
}
