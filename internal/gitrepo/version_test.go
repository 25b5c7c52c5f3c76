package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// countingGit returns the path of a script that runs the real git after
// appending a line to the returned log, so a test can count git's runs.
func countingGit(t *testing.T) (path, log string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	path, log = filepath.Join(dir, "git"), filepath.Join(dir, "runs")
	script := "#!/bin/sh\necho run >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, log
}

func runsIn(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// Version asks git once per executable, and after that reads its file;
// anything else in the file makes it ask git again.
func TestVersionFile(t *testing.T) {
	ctx := context.Background()
	dir := initRepo(t)
	path, log := countingGit(t)
	file := filepath.Join(t.TempDir(), "uwf", "git-version")
	r := &Runner{Path: path, Dir: dir, VersionFile: file}
	real, err := (&Runner{Path: path, Dir: dir}).Output(ctx, "version")
	if err != nil {
		t.Fatal(err)
	}
	recorded := func() string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	steps := []struct {
		name    string
		before  func()
		want    string // "" means real
		wantRun bool
	}{
		{"no file yet", func() {}, "", true},
		{"file of this executable", func() {}, "", false},
		{"the file is what is answered", func() {
			k, _, _ := strings.Cut(recorded(), "\n")
			if err := os.WriteFile(file, []byte(k+"\ngit version 9.99.1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "git version 9.99.1", false},
		{"executable changed", func() {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(path, later, later); err != nil {
				t.Fatal(err)
			}
		}, "", true},
		{"file damaged", func() {
			if err := os.WriteFile(file, []byte("\x00garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "", true},
		{"file names no version", func() {
			k, _, _ := strings.Cut(recorded(), "\n")
			if err := os.WriteFile(file, []byte(k+"\nnot a version\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "", true},
		{"file removed", func() {
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
		}, "", true},
	}
	for _, s := range steps {
		s.before()
		runs := runsIn(t, log)
		got, err := r.Version(ctx)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		want := s.want
		if want == "" {
			want = real
		}
		if got != want {
			t.Errorf("%s: Version = %q, want %q", s.name, got, want)
		}
		if ran := runsIn(t, log) > runs; ran != s.wantRun {
			t.Errorf("%s: git ran: %v, want %v", s.name, ran, s.wantRun)
		}
		if s.wantRun && !strings.HasSuffix(recorded(), "\n"+real+"\n") {
			t.Errorf("%s: file not rewritten: %q", s.name, recorded())
		}
	}
}

// Without a VersionFile, every call asks git.
func TestVersionWithoutFile(t *testing.T) {
	dir := initRepo(t)
	path, log := countingGit(t)
	r := &Runner{Path: path, Dir: dir}
	for i := 1; i <= 2; i++ {
		if _, err := r.Version(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := runsIn(t, log); got != i {
			t.Fatalf("after %d calls git ran %d times", i, got)
		}
	}
}
