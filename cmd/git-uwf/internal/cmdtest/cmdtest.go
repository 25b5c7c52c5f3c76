// Package cmdtest runs git-uwf commands in-process for tests: a fresh
// Factory on test streams, the working directory and clock pinned, and the
// whole command line through root.Run as a user would type it.
package cmdtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
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
	return run(t, dir, now, stdin, args, func(f *cmdutil.Factory) int {
		return root.Run(context.Background(), f, append([]string{"git-uwf"}, args...))
	})
}

// RunCommand runs `git uwf <command> args…` in-process with newCmd's
// command as the only one, for a command git-uwf itself runs as a program
// of its own (serve: git-uwf-serve): the command that program carries.
func RunCommand(t testing.TB, dir string, now time.Time, newCmd func(*cmdutil.Factory) *cli.Command, args ...string) Result {
	t.Helper()
	return run(t, dir, now, "", args, func(f *cmdutil.Factory) int {
		return root.RunCommand(context.Background(), f, newCmd, args)
	})
}

// run runs one command line with a Factory set up for tests.
func run(t testing.TB, dir string, now time.Time, stdin string, args []string, runIt func(*cmdutil.Factory) int) Result {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := cmdutil.NewFactory(ios)
	f.Getwd = func() (string, error) { return dir, nil }
	f.OpenBrowser = func(url string) error {
		t.Errorf("git uwf %s opened a browser at %s", strings.Join(args, " "), url)
		return errors.New("tests open no browser")
	}
	if !now.IsZero() {
		f.Now = func() time.Time { return now }
	}
	f.Repo = cmdutil.OpenRepoOnce(f)
	code := runIt(f)
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

// Transcript renders a result the way golden files hold it.
func (r Result) Transcript() string {
	return "exit: " + strconv.Itoa(r.Code) + "\n-- stdout --\n" + r.Out + "-- stderr --\n" + r.Err
}

// Golden compares got with the golden file at path; with update set it
// rewrites the file instead (tests pass their -update flag).
func Golden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
