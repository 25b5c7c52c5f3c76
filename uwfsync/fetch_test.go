package uwfsync_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

// logPushes installs a pre-receive hook in the remote that appends every
// ref update it receives to a file, and returns a function that reads and
// clears that file.
func logPushes(t *testing.T, remote string) func() []string {
	t.Helper()
	log := filepath.Join(t.TempDir(), "received")
	hook := "#!/bin/sh\nwhile read old new ref; do echo \"$ref\" >> '" + log + "'; done\n"
	if err := os.WriteFile(filepath.Join(remote, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		t.Helper()
		b, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(log); err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(b))
	}
}

// TestSyncSendsOnlyWhatMoved: with several threads on the remote, a sync
// after one new step pushes that one ref, and a sync with nothing new
// pushes nothing at all.
func TestSyncSendsOnlyWhatMoved(t *testing.T) {
	t.Parallel()
	repos := synctest.ReposAndRemote(t)
	a := chaintest.Open(t, repos.A)
	th := start(t, a, "first")
	start(t, a, "second")
	start(t, a, "third")
	received := logPushes(t, repos.Remote)
	mustSync(t, a)
	if got := received(); len(got) != 4 { // three threads and the workflow
		t.Fatalf("first sync pushed %v, want 3 threads and 1 workflow", got)
	}
	develop(t, a, th.ID, "one step")
	rep := mustSync(t, a)
	if got := received(); len(got) != 1 || got[0] != th.ID.Ref() {
		t.Errorf("sync of one step pushed %v, want only %s", got, th.ID.Ref())
	}
	result(t, rep, th.ID.Ref(), uwfsync.KindPushed)
	seen := map[string]int{}
	for _, res := range rep.Results {
		seen[res.Ref]++
	}
	for ref, n := range seen {
		if ref != th.ID.Ref() && n != 1 {
			t.Errorf("%s reported %d times, want once (fetch only: it was not pushed)", ref, n)
		}
	}
	// With nothing to send, sync does not even connect for a push: a push
	// URL that does not work changes nothing.
	chaintest.Git(t, repos.A, "config", "remote.origin.pushurl", filepath.Join(t.TempDir(), "no-such-remote.git"))
	if changed := mustSync(t, a).Changed(); len(changed) != 0 {
		t.Errorf("second sync changed %+v", changed)
	}
	if got := received(); len(got) != 0 {
		t.Errorf("sync with nothing new pushed %v", got)
	}
}

// TestFetchMovedAndPruned: fetch brings the refs that moved on the remote,
// drops the remote-tracking refs of refs the remote no longer has (the
// local thread is kept, and the next sync offers it to the remote again),
// and leaves the others alone.
func TestFetchMovedAndPruned(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	moving := start(t, a, "moving")
	gone := start(t, a, "gone")
	still := start(t, a, "still")
	mustSync(t, a)
	mustFetch(t, b)

	develop(t, a, moving.ID, "moved on")
	step := develop(t, a, moving.ID, "and on")
	mustSync(t, a)
	chaintest.Git(t, repos.Remote, "update-ref", "-d", gone.ID.Ref())

	rep := mustFetch(t, b)
	if res := result(t, rep, moving.ID.Ref()); res.Kind != uwfsync.KindFastForward || res.New != step.Commit.String() || res.Steps != 2 {
		t.Errorf("fetch of %s = %+v, want fast-forward to %s", moving.ID, res, step.Commit)
	}
	result(t, rep, still.ID.Ref(), uwfsync.KindUpToDate)
	for _, res := range rep.Results {
		if res.Ref == gone.ID.Ref() {
			t.Errorf("fetch reported %+v for a ref the remote deleted", res)
		}
	}
	tracking := "refs/remotes/origin/uwf/threads/"
	if out := chaintest.Git(t, repos.B, "for-each-ref", tracking+string(gone.ID)); out != "" {
		t.Errorf("remote-tracking ref of deleted %s kept: %s", gone.ID, out)
	}
	if got := chaintest.Git(t, repos.B, "rev-parse", tracking+string(moving.ID)); got != step.Commit.String() {
		t.Errorf("remote-tracking %s = %s, want %s", moving.ID, got, step.Commit)
	}
	if _, err := b.Thread(ctx, gone.ID); err != nil {
		t.Errorf("local %s lost after the remote deleted it: %v", gone.ID, err)
	}
	rep = mustSync(t, b)
	result(t, rep, gone.ID.Ref(), uwfsync.KindPushed)
	if got := chaintest.Git(t, repos.Remote, "rev-parse", gone.ID.Ref()); got != gone.Head.Commit.String() {
		t.Errorf("remote %s = %s after sync, want %s", gone.ID, got, gone.Head.Commit)
	}
}

// TestSyncEarlyPushRefused: B's sync pushes its new refs while it lists the
// remote; A has stepped a thread B stepped too, so the remote refuses that
// whole push. The sync still ends with both lines kept and everything
// pushed, and reports no rejection.
func TestSyncEarlyPushRefused(t *testing.T) {
	t.Parallel()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	th := start(t, a, "shared")
	mustSync(t, a)
	mustFetch(t, b)
	aStep := develop(t, a, th.ID, "A's step")
	bStep := develop(t, b, th.ID, "B's step")
	own := start(t, b, "B's own")
	mustSync(t, a)

	rep := mustSync(t, b)
	fork := result(t, rep, th.ID.Ref(), uwfsync.KindForked).Fork
	result(t, rep, own.ID.Ref(), uwfsync.KindPushed)
	result(t, rep, fork, uwfsync.KindPushed)
	for ref, want := range map[string]string{th.ID.Ref(): aStep.Commit.String(), fork: bStep.Commit.String(), own.ID.Ref(): own.Head.Commit.String()} {
		if got := chaintest.Git(t, repos.Remote, "rev-parse", ref); got != want {
			t.Errorf("remote %s = %s, want %s", ref, got, want)
		}
		if got := chaintest.Git(t, repos.B, "rev-parse", "refs/remotes/origin/uwf/"+strings.TrimPrefix(ref, "refs/uwf/")); got != want {
			t.Errorf("B's remote-tracking ref of %s = %s, want %s", ref, got, want)
		}
	}
	if changed := mustSync(t, b).Changed(); len(changed) != 0 {
		t.Errorf("second sync changed %+v", changed)
	}
}

// TestManyRefsPacked: a sync that writes hundreds of refs (the first push
// of many threads, the first fetch of them) leaves them packed, not as one
// loose file each, and they keep their values. A fetch packs twice, the
// remote-tracking refs while it checks the threads and the local refs it
// created while it refreshes the alias index, and both packings have
// ended when it returns: a git pack-refs left running would hold
// packed-refs.lock, on which every ref deletion waits.
func TestManyRefsPacked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	wf := register(t, a, "")
	const n = 300
	for i := range n {
		if _, err := a.StartThread(ctx, wf, "task "+strconv.Itoa(i), "/"); err != nil {
			t.Fatal(err)
		}
	}
	mustSync(t, a)
	// B's git records when each pack-refs starts and when it has ended,
	// a moment after git itself did, so that a packing the fetch does not
	// wait for is still running when it returns.
	packLog := filepath.Join(t.TempDir(), "packings")
	b.Git.Path = slowPackRefs(t, b.Git.Path, packLog)
	mustFetch(t, b)
	if log, _ := os.ReadFile(packLog); string(log) != "start\nend\nstart\nend\n" {
		t.Errorf("git pack-refs runs, as the fetch returned: %q; want two, one after the other, both ended", log)
	}
	loose := func(dir string, ns ...string) []string {
		found, _ := filepath.Glob(filepath.Join(append([]string{dir, ".git", "refs"}, append(ns, "threads", "*")...)...))
		return found
	}
	if refs := loose(repos.B, "uwf"); len(refs) != 0 {
		t.Errorf("%s: %d loose local thread refs after fetching %d threads, want them packed", repos.B, len(refs), n)
	}
	for _, dir := range []string{repos.A, repos.B} {
		if refs := loose(dir, "remotes", "origin", "uwf"); len(refs) != 0 {
			t.Errorf("%s: %d loose remote-tracking refs after syncing %d threads, want them packed", dir, len(refs), n)
		}
		tracking := chaintest.Git(t, dir, "for-each-ref", "--format=%(objectname) %(refname:lstrip=4)", "refs/remotes/origin/uwf/threads/")
		local := chaintest.Git(t, repos.A, "for-each-ref", "--format=%(objectname) %(refname:lstrip=2)", "refs/uwf/threads/")
		if tracking != local || strings.Count(local, "\n") != n-1 {
			t.Errorf("%s: remote-tracking threads differ from A's %d threads", dir, n)
		}
	}
	if mine := chaintest.Git(t, repos.B, "for-each-ref", "--format=%(objectname) %(refname)", "refs/uwf/threads/"); mine != chaintest.Git(t, repos.A, "for-each-ref", "--format=%(objectname) %(refname)", "refs/uwf/threads/") {
		t.Errorf("%s: local threads differ from A's after the fetch", repos.B)
	}
}

// slowPackRefs writes a program that runs git (at path) as it is asked
// to, and for pack-refs also appends "start" to log before and "end" 100
// ms after git ended, and returns the program's path.
func slowPackRefs(t *testing.T, git, log string) string {
	t.Helper()
	shim := filepath.Join(t.TempDir(), "git")
	script := "#!/bin/sh\n" +
		"for arg; do [ \"$arg\" = pack-refs ] && packing=1; done\n" +
		"[ -z \"$packing\" ] && exec '" + git + "' \"$@\"\n" +
		"echo start >> '" + log + "'\n" +
		"'" + git + "' \"$@\"; status=$?\n" +
		"sleep 0.1\n" +
		"echo end >> '" + log + "'\n" +
		"exit $status\n"
	if err := os.WriteFile(shim, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// A child another test forked while the shim was open for writing
	// holds it open until that child execs, and executing the shim then
	// fails with ETXTBSY. Once one run of it succeeds, no process holds it
	// open for writing any more, nor can one come to.
	for deadline := time.Now().Add(5 * time.Second); ; {
		err := exec.Command(shim, "--version").Run()
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.ETXTBSY) || time.Now().After(deadline) {
			t.Fatalf("run %s: %v", shim, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return shim
}
