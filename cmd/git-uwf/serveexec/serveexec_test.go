package serveexec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

// TestFind: the viewer next to the running executable (its link resolved)
// wins; else the one on PATH; else an error that says how to install it.
func TestFind(t *testing.T) {
	root := t.TempDir()
	install := filepath.Join(root, "install")
	writeFile(t, filepath.Join(install, "git-uwf"), "", 0o755)
	writeFile(t, filepath.Join(install, Program), "", 0o755)
	linked := filepath.Join(root, "links", "git-uwf")
	if err := os.MkdirAll(filepath.Dir(linked), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(install, "git-uwf"), linked); err != nil {
		t.Fatal(err)
	}
	lonely := filepath.Join(root, "lonely")
	writeFile(t, filepath.Join(lonely, "git-uwf"), "", 0o755)
	notExec := filepath.Join(root, "notexec")
	writeFile(t, filepath.Join(notExec, "git-uwf"), "", 0o755)
	writeFile(t, filepath.Join(notExec, Program), "", 0o644)
	onPath := filepath.Join(root, "path", Program)

	exe := func(p string) func() (string, error) { return func() (string, error) { return p, nil } }
	noExe := func() (string, error) { return "", errors.New("no executable") }
	pathHas := func(string) (string, error) { return onPath, nil }
	pathLacks := func(name string) (string, error) { return "", errors.New(name + ": not found") }
	tests := []struct {
		name       string
		executable func() (string, error)
		lookPath   func(string) (string, error)
		want       string // empty: an error is wanted
	}{
		{"next to git-uwf", exe(filepath.Join(install, "git-uwf")), pathHas, filepath.Join(install, Program)},
		{"next to the link's target", exe(linked), pathLacks, filepath.Join(install, Program)},
		{"on PATH", exe(filepath.Join(lonely, "git-uwf")), pathHas, onPath},
		{"not executable next to git-uwf", exe(filepath.Join(notExec, "git-uwf")), pathHas, onPath},
		{"executable unknown", noExe, pathHas, onPath},
		{"nowhere", exe(filepath.Join(lonely, "git-uwf")), pathLacks, ""},
		{"nowhere, executable unknown", noExe, pathLacks, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := find(tt.executable, tt.lookPath)
			if tt.want != "" {
				if err != nil || got != tt.want {
					t.Errorf("find = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("find = %q, want an error", got)
			}
			for _, s := range []string{Program, "not installed", "make install", "go install ./cmd/git-uwf ./cmd/git-uwf-serve"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

// TestRun runs a stand-in viewer: it gets the arguments as given, runs in
// the directory git uwf runs in, writes to the command's streams, and its
// exit code (or the signal that ended it) becomes the command's.
func TestRun(t *testing.T) {
	prog := filepath.Join(t.TempDir(), Program)
	writeFile(t, prog, "#!/bin/sh\npwd\nfor a in \"$@\"; do echo \"arg $a\"; done\nread line; echo \"stdin $line\"\necho oops >&2\ncase \"$1\" in\nexit*) exit \"${1#exit}\" ;;\nkill) kill -TERM $$ ;;\nesac\n", 0o755)
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--addr", "127.0.0.1:0", "two words"}, 0},
		{[]string{"exit3", "--open"}, 3},
		{[]string{"exit2"}, 2},
		{[]string{"kill"}, 128 + 15},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, in, out, errOut := iostreams.Test()
			in.WriteString("hello\n")
			f := cmdutil.NewFactory(ios)
			f.Getwd = func() (string, error) { return dir, nil }
			err := run(context.Background(), f, prog, tt.args)
			if code := cmdutil.ExitCode(err); code != tt.code {
				t.Errorf("exit %d (%v), want %d", code, err, tt.code)
			}
			var b strings.Builder
			cmdutil.PrintError(&b, err)
			if b.Len() != 0 {
				t.Errorf("printed %q for the viewer's failure; the viewer speaks for itself", b.String())
			}
			want := dir + "\n"
			for _, a := range tt.args {
				want += "arg " + a + "\n"
			}
			want += "stdin hello\n"
			if out.String() != want {
				t.Errorf("stdout %q, want %q", out.String(), want)
			}
			if errOut.String() != "oops\n" {
				t.Errorf("stderr %q, want %q", errOut.String(), "oops\n")
			}
		})
	}
}

// TestRunCancelled: when the context ends without a signal (a caller
// cancelling), the viewer gets SIGTERM and the command ends with its exit.
func TestRunCancelled(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	prog := filepath.Join(t.TempDir(), Program)
	writeFile(t, prog, "#!/bin/sh\ntrap 'echo terminated; exit 0' TERM\n: > ready\nwhile :; do sleep 0.01; done\n", 0o755)
	ios, _, out, _ := iostreams.Test()
	f := cmdutil.NewFactory(ios)
	f.Getwd = func() (string, error) { return dir, nil }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx, f, prog, nil) }()
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the viewer ended before it was ready: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run = %v, want nil after the viewer's clean exit", err)
	}
	if out.String() != "terminated\n" {
		t.Errorf("stdout %q: the viewer did not get SIGTERM", out.String())
	}
}

func TestRunMissingProgram(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := cmdutil.NewFactory(ios)
	f.Getwd = func() (string, error) { return t.TempDir(), nil }
	err := run(context.Background(), f, filepath.Join(t.TempDir(), Program), nil)
	if err == nil || cmdutil.ExitCode(err) != cmdutil.ExitFailure || !strings.Contains(err.Error(), Program) {
		t.Errorf("run = %v (exit %d), want an error naming %s", err, cmdutil.ExitCode(err), Program)
	}
}
