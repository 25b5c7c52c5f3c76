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
	argv := args
	if len(r.Config) > 0 {
		argv = make([]string, 0, 2*len(r.Config)+len(args))
		for _, kv := range r.Config {
			argv = append(argv, "-c", kv)
		}
		argv = append(argv, args...)
	}
	cmd := exec.CommandContext(ctx, r.Path, argv...)
	// Cancelled, git is asked to stop rather than killed: it then removes
	// the lock files it holds (a ref's, packed-refs'), which a killed git
	// leaves behind for every later command to trip over. WaitDelay below
	// kills one that does not stop.
	cmd.Cancel = func() error { return stopGit(cmd.Process) }
	cmd.Dir = r.Dir
	cmd.Env = append(append(os.Environ(), r.Env...), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
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

// Output runs git and returns its stdout with surrounding whitespace trimmed.
func (r *Runner) Output(ctx context.Context, args ...string) (string, error) {
	out, err := r.Run(ctx, nil, args...)
	return strings.TrimSpace(string(out)), err
}
