package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// GitError is a failed git invocation.
type GitError struct {
	Args     []string
	ExitCode int
	Stderr   string
	Err      error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 && strings.HasPrefix(msg[i+1:], "fatal:") {
		msg = msg[i+1:]
	}
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// Runner runs git with a fixed working directory and extra environment.
type Runner struct {
	// Path is the git executable (resolved with exec.LookPath).
	Path string
	// Dir is the working directory of every invocation.
	Dir string
	// Env is appended to the process environment (e.g. GIT_DIR=…).
	Env []string
	// VersionFile, when set, keeps the answer of `git version` between
	// processes (see Version).
	VersionFile string
	// Config holds "key=value" settings that Run, Stream and Output (and
	// so UpdateRefs) pass with -c before the command; they win over the
	// repository's and the user's configuration. WithConfig makes a Runner
	// that adds some.
	Config []string
}

// WithConfig returns a copy of r that also passes the "key=value"
// settings kv with -c (see Config), after those r already passes.
func (r *Runner) WithConfig(kv ...string) *Runner {
	c := *r
	c.Config = append(slices.Clip(r.Config), kv...)
	return &c
}

// NewRunner finds git on PATH and returns a Runner for dir.
func NewRunner(dir string, env []string) (*Runner, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("find git: %w", err)
	}
	return &Runner{Path: path, Dir: dir, Env: env}, nil
}

// Run runs git with args, feeding stdin (may be nil), and returns stdout.
func (r *Runner) Run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	if err := r.Stream(ctx, stdin, &stdout, &stderr, args...); err != nil {
		return stdout.Bytes(), err
	}
	return stdout.Bytes(), nil
}

// Stream runs git with args, writing its stdout and stderr to the given
// writers. The returned *GitError carries stderr when it was captured in a
// *bytes.Buffer.
func (r *Runner) Stream(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, r.Path, r.argv(args)...)
	cmd.Dir = r.Dir
	cmd.Env = r.environ()
	cmd.Stdin = stdin
	var tail bytes.Buffer
	cmd.Stdout = stdout
	if stderr == nil {
		cmd.Stderr = &tail
	} else {
		cmd.Stderr = io.MultiWriter(stderr, &tail)
	}
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		ge := &GitError{Args: args, ExitCode: -1, Stderr: tail.String(), Err: err}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			ge.ExitCode = exit.ExitCode()
		}
		if ctx.Err() != nil {
			ge.Err = ctx.Err()
		}
		return ge
	}
	return nil
}

// StartDetached starts git with args in a session of its own, its standard
// streams on the null device and tied to no context: it runs on when this
// process ends or is interrupted, as git's own background housekeeping
// (gc --auto) does. done receives its result once it has exited, if this
// process still runs then. Where sessions do not exist it runs git to the
// end before returning.
func (r *Runner) StartDetached(args ...string) (done <-chan error, err error) {
	cmd := exec.Command(r.Path, r.argv(args)...)
	cmd.Dir = r.Dir
	cmd.Env = r.environ()
	if !detach(cmd) {
		ch := make(chan error, 1)
		ch <- cmd.Run()
		return ch, nil
	}
	if err := cmd.Start(); err != nil {
		return nil, &GitError{Args: args, ExitCode: -1, Err: err}
	}
	ch := make(chan error, 1)
	go func() { ch <- cmd.Wait() }()
	return ch, nil
}

// argv is the argument list for args: r.Config's settings first.
func (r *Runner) argv(args []string) []string {
	if len(r.Config) == 0 {
		return args
	}
	argv := make([]string, 0, 2*len(r.Config)+len(args))
	for _, kv := range r.Config {
		argv = append(argv, "-c", kv)
	}
	return append(argv, args...)
}

// environ is the environment of every git r runs.
func (r *Runner) environ() []string {
	return append(append(os.Environ(), r.Env...), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
}

// Output runs git and returns its stdout with surrounding whitespace trimmed.
func (r *Runner) Output(ctx context.Context, args ...string) (string, error) {
	out, err := r.Run(ctx, nil, args...)
	return strings.TrimSpace(string(out)), err
}
