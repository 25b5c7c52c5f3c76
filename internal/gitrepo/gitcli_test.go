package gitrepo

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func initRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "root")
	return dir
}

func TestDiscover(t *testing.T) {
	ctx := context.Background()
	main := initRepo(t)
	sub := filepath.Join(main, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, main, "worktree", "add", "-q", wt)
	bare := filepath.Join(t.TempDir(), "bare.git")
	git(t, main, "clone", "-q", "--bare", main, bare)

	realMain, _ := filepath.EvalSymlinks(main)
	realWT, _ := filepath.EvalSymlinks(wt)
	realBare, _ := filepath.EvalSymlinks(bare)
	mainGit := filepath.Join(realMain, ".git")

	tests := []struct {
		name                string
		dir                 string
		env                 []string
		gitDir, common, top string
		bare                bool
	}{
		{"top", main, nil, mainGit, mainGit, realMain, false},
		{"subdir", sub, nil, mainGit, mainGit, realMain, false},
		{"linked worktree", wt, nil, filepath.Join(mainGit, "worktrees", "wt"), mainGit, realWT, false},
		{"bare", bare, nil, realBare, realBare, "", true},
		{"GIT_DIR", t.TempDir(), []string{"GIT_DIR=" + bare}, realBare, realBare, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo, err := Discover(ctx, tt.dir, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if repo.GitDir != tt.gitDir || repo.CommonDir != tt.common || repo.WorkTree != tt.top || repo.Bare != tt.bare {
				t.Errorf("got %+v, want gitDir=%s common=%s top=%s bare=%v", repo, tt.gitDir, tt.common, tt.top, tt.bare)
			}
			if repo.ObjectFormat != "sha1" {
				t.Errorf("object format %q", repo.ObjectFormat)
			}
		})
	}
}

func TestDiscoverOutsideRepository(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	_, err := Discover(context.Background(), dir, nil)
	if !errors.Is(err, ErrNotRepository) {
		t.Fatalf("want ErrNotRepository, got %v", err)
	}
}

func TestUpdateRefsCompareAndSwap(t *testing.T) {
	ctx := context.Background()
	dir := initRepo(t)
	head := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	second := git(t, dir, "rev-parse", "HEAD")
	r, err := NewRunner(dir, nil)
	if err != nil {
		t.Fatal(err)
	}

	// Create: must not exist yet.
	if err := r.UpdateRefs(ctx, "test", RefUpdate{Ref: "refs/uwf/threads/A", New: head, Old: ZeroOID}); err != nil {
		t.Fatal(err)
	}
	// Creating again fails: the ref exists.
	err = r.UpdateRefs(ctx, "test", RefUpdate{Ref: "refs/uwf/threads/A", New: second, Old: ZeroOID})
	var conflict *RefConflictError
	if !errors.As(err, &conflict) || conflict.Ref != "refs/uwf/threads/A" {
		t.Fatalf("want RefConflictError, got %v", err)
	}
	// Wrong old value fails and leaves the ref alone.
	err = r.UpdateRefs(ctx, "test", RefUpdate{Ref: "refs/uwf/threads/A", New: second, Old: second})
	if !errors.As(err, &conflict) {
		t.Fatalf("want RefConflictError, got %v", err)
	}
	if got := git(t, dir, "rev-parse", "refs/uwf/threads/A"); got != head {
		t.Fatalf("ref moved to %s after a failed CAS", got)
	}
	// Atomic: one bad update in a transaction keeps the good one from landing.
	err = r.UpdateRefs(ctx, "test",
		RefUpdate{Ref: "refs/uwf/threads/B", New: head, Old: ZeroOID},
		RefUpdate{Ref: "refs/uwf/threads/A", New: second, Old: second})
	if !errors.As(err, &conflict) {
		t.Fatalf("want RefConflictError, got %v", err)
	}
	if out, _ := r.Output(ctx, "for-each-ref", "refs/uwf/threads/B"); out != "" {
		t.Fatalf("partial transaction landed: %s", out)
	}
	// The right old value moves it.
	if err := r.UpdateRefs(ctx, "test", RefUpdate{Ref: "refs/uwf/threads/A", New: second, Old: head}); err != nil {
		t.Fatal(err)
	}
	refs, err := r.ForEachRef(ctx, "refs/uwf/")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].OID != second || refs[0].Name != "refs/uwf/threads/A" {
		t.Fatalf("for-each-ref: %+v", refs)
	}
	if err := r.UpdateRefs(ctx, "x", RefUpdate{Ref: "refs/uwf/bad name", New: head, Old: ZeroOID}); err == nil {
		t.Fatal("a ref name with a space was accepted")
	}
}

func TestGitErrorMessage(t *testing.T) {
	r, err := NewRunner(t.TempDir(), []string{"GIT_DIR=/nonexistent/x"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(context.Background(), nil, "rev-parse", "HEAD")
	var ge *GitError
	if !errors.As(err, &ge) || ge.ExitCode == 0 || !strings.Contains(err.Error(), "git rev-parse HEAD") {
		t.Fatalf("unexpected error %v", err)
	}
}

func TestUpdateRefsLocked(t *testing.T) {
	ctx := context.Background()
	dir := initRepo(t)
	head := git(t, dir, "rev-parse", "HEAD")
	if err := os.MkdirAll(filepath.Join(dir, ".git", "refs", "uwf", "threads"), 0o755); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, ".git", "refs", "uwf", "threads", "A.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := NewRunner(dir, nil)
	err := r.UpdateRefs(ctx, "test", RefUpdate{Ref: "refs/uwf/threads/A", New: head, Old: ZeroOID})
	var locked *RefLockedError
	if !errors.As(err, &locked) || locked.Ref != "refs/uwf/threads/A" || !strings.HasSuffix(locked.LockFile, "A.lock") {
		t.Fatalf("want RefLockedError, got %v", err)
	}
}

// TestRunnerWithConfig: settings added with WithConfig reach git (and win
// over the repository's), stack, and leave the original Runner alone.
func TestRunnerWithConfig(t *testing.T) {
	ctx := context.Background()
	dir := initRepo(t)
	git(t, dir, "config", "uwf.test", "repo")
	r, err := NewRunner(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := r.WithConfig("uwf.test=given").WithConfig("uwf.other=more")
	for key, want := range map[string]string{"uwf.test": "given", "uwf.other": "more"} {
		if got, err := c.Output(ctx, "config", "--get", key); err != nil || got != want {
			t.Errorf("with config, %s = %q, %v; want %q", key, got, err, want)
		}
	}
	if got, err := r.Output(ctx, "config", "--get", "uwf.test"); err != nil || got != "repo" {
		t.Errorf("original runner: uwf.test = %q, %v; want the repository's %q", got, err, "repo")
	}
	if len(r.Config) != 0 {
		t.Errorf("WithConfig changed the original runner: %q", r.Config)
	}
}

// TestUpdateRefsNoAmbiguityLookup: update-ref is told not to look up the
// object ids it is given as ref names (core.warnAmbiguousRefs=false), as
// git's own trace of the command line shows.
func TestUpdateRefsNoAmbiguityLookup(t *testing.T) {
	ctx := context.Background()
	dir := initRepo(t)
	head := git(t, dir, "rev-parse", "HEAD")
	trace := filepath.Join(t.TempDir(), "trace2")
	r, err := NewRunner(dir, []string{"GIT_TRACE2=" + trace})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRefs(ctx, "test", RefUpdate{Ref: "refs/uwf/threads/A", New: head, Old: ZeroOID}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "git -c core.warnAmbiguousRefs=false update-ref --stdin") {
		t.Errorf("update-ref ran without core.warnAmbiguousRefs=false; trace:\n%s", b)
	}
}

// TestCancelledGitLeavesNoLock: a git process that holds a ref's lock when
// its run is cancelled removes the lock as it stops (a killed one left it
// behind, and every later update of that ref failed on it).
func TestCancelledGitLeavesNoLock(t *testing.T) {
	dir := initRepo(t)
	head := git(t, dir, "rev-parse", "HEAD")
	r, err := NewRunner(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// stdin is a real pipe kept open to the end: git, waiting on it, can
	// only stop for the cancel (an EOF would end the transaction as well).
	stdin, feed, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	defer feed.Close()
	replies, stdout := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		err := r.Stream(ctx, stdin, stdout, nil, "update-ref", "--stdin")
		stdout.Close()
		done <- err
	}()
	// Prepared, the transaction holds the ref's lock until it is
	// committed or aborted; the open stdin keeps git waiting for that.
	if _, err := io.WriteString(feed, "start\nupdate refs/heads/held "+head+"\nprepare\n"); err != nil {
		t.Fatal(err)
	}
	// git answers "prepare: ok" once it holds the lock and has registered
	// it for removal. The lock file alone is no signal: git creates it a
	// moment before registering it, and a SIGTERM in between leaves it.
	lines := bufio.NewReader(replies)
	for _, want := range []string{"start: ok\n", "prepare: ok\n"} {
		got, err := lines.ReadString('\n')
		if err != nil || got != want {
			t.Fatalf("git update-ref replied %q (%v), want %q", got, err, want)
		}
	}
	go io.Copy(io.Discard, lines)
	lock := filepath.Join(dir, ".git", "refs", "heads", "held.lock")
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("the prepared transaction holds no lock: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock %s is left after the cancelled run (%v)", lock, err)
	}
}
