// Package cmdtest runs git-uwf commands in-process for tests: a fresh
// Factory on test streams, the working directory and clock pinned, and the
// whole command line through root.Run as a user would type it.
package cmdtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
	"github.com/git-uwf/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/internal/iostreams"
)

// Result is what one run produced.
type Result struct {
	Code     int
	Out, Err string
}

// Run runs `git uwf args…` with dir as the working directory and now as
// the clock (zero: the real clock).
func Run(t testing.TB, dir string, now time.Time, args ...string) Result {
	t.Helper()
	return RunStdin(t, dir, now, "", args...)
}

// RunStdin is Run with stdin as the command's standard input.
func RunStdin(t testing.TB, dir string, now time.Time, stdin string, args ...string) Result {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := cmdutil.NewFactory(ios)
	f.Getwd = func() (string, error) { return dir, nil }
	if !now.IsZero() {
		f.Now = func() time.Time { return now }
	}
	f.Repo = cmdutil.OpenRepoOnce(f)
	code := root.Run(context.Background(), f, append([]string{"git-uwf"}, args...))
	return Result{Code: code, Out: out.String(), Err: errOut.String()}
}

// MustRun is Run that fails the test unless the command exits 0; it
// returns stdout.
func MustRun(t testing.TB, dir string, now time.Time, args ...string) string {
	t.Helper()
	r := Run(t, dir, now, args...)
	if r.Code != 0 {
		t.Fatalf("git uwf %s: exit %d\n%s", strings.Join(args, " "), r.Code, r.Err)
	}
	return r.Out
}
