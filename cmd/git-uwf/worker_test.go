package main_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gitDaemon serves base on a free loopback port, with pushes allowed, and
// returns the URL prefix.
func gitDaemon(t *testing.T, base string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("git", "daemon", "--export-all", "--enable=receive-pack", "--base-path="+base,
		"--reuseaddr", "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), base)
	if err := cmd.Start(); err != nil {
		t.Skipf("git daemon: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("git://127.0.0.1:%d/", port)
	waitFor(t, 10*time.Second, func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return url
}

func TestWorkersShareARemote(t *testing.T) {
	if testing.Short() {
		t.Skip("three workers and a git daemon")
	}
	fl := newFleet(t)
	base := filepath.Join(filepath.Dir(fl.dir), "served")
	remote := filepath.Join(base, "remote.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	url := gitDaemon(t, base) + "remote.git"
	fl.git("remote", "add", "origin", url)
	const threads = 30
	ids := map[string]bool{}
	for i := 0; i < threads; i++ {
		ids[fl.start(fmt.Sprintf("task %d", i))] = true
	}
	fl.uwf("push", "origin")

	type worker struct {
		cmd *exec.Cmd
		log *strings.Builder
	}
	var workers []*worker
	for i := 0; i < 3; i++ {
		clone := filepath.Join(filepath.Dir(fl.dir), fmt.Sprintf("clone%d", i))
		if out, err := exec.Command("git", "clone", "-q", url, clone).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
		cmd := exec.Command(gitUwfBin, "worker", "origin", "-j", "1", "--lease", "10s", "--until-idle", "--agent", fl.agent)
		cmd.Dir = clone
		cmd.Env = append(append([]string(nil), fl.env...), "SLEEP=0")
		w := &worker{cmd: cmd, log: &strings.Builder{}}
		cmd.Stdout, cmd.Stderr = w.log, w.log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		workers = append(workers, w)
	}
	// Kill the first worker once it has done some work, in the middle of
	// whatever it is doing.
	time.Sleep(3 * time.Second)
	_ = workers[0].cmd.Process.Signal(syscall.SIGKILL)
	_ = workers[0].cmd.Wait()
	for i, w := range workers[1:] {
		done := make(chan error, 1)
		go func() { done <- w.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("worker %d: %v\n%s", i+1, err, w.log)
			}
		case <-time.After(10 * time.Minute):
			_ = w.cmd.Process.Kill()
			t.Fatalf("worker %d did not finish\n%s", i+1, w.log)
		}
	}

	gitRemote := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"--git-dir", remote}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v on the remote: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if leases := strings.TrimSpace(gitRemote("for-each-ref", "refs/uwf/leases/")); leases != "" {
		t.Errorf("lease refs left on the remote:\n%s", leases)
	}
	for id := range ids {
		// The start commit and exactly three steps.
		if n := strings.TrimSpace(gitRemote("rev-list", "--count", "refs/uwf/threads/"+id)); n != "4" {
			t.Errorf("thread %s has %s commits on the remote, want 4 (start + 3 steps)", id, n)
		}
		msg := gitRemote("log", "-1", "--format=%B", "refs/uwf/threads/"+id)
		if !strings.Contains(msg, "Uwf-Status: done") {
			t.Errorf("thread %s does not end in its last step:\n%s", id, msg)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(gitRemote("rev-list", "--children", "--all")), "\n") {
		if f := strings.Fields(line); len(f) > 2 {
			t.Errorf("commit %s has %d children on the remote", f[0], len(f)-1)
		}
	}
	gitRemote("fsck", "--strict", "--no-dangling")
	// The seeding clone sees every thread completed.
	fl.uwf("fetch", "origin")
	list := fl.uwf("thread", "list", "--all", "--format", "json")
	if n := strings.Count(list, `"status": "completed"`); n != threads {
		t.Errorf("%d threads completed, want %d\n%s", n, threads, list)
	}
	_ = os.Remove(fl.times)
}

func TestStepRefusesALeasedThread(t *testing.T) {
	fl := newFleet(t)
	id := fl.start("leased")
	head := strings.TrimSpace(fl.git("rev-parse", "refs/uwf/threads/"+id))
	expires := time.Now().Add(time.Hour).UnixMilli()
	msg := fmt.Sprintf("uwf lease %s\n\nUwf-Lease-Thread: %s\nUwf-Lease-Worker: ci-7\x1b]0;pwned\x07\x1b[2J\nUwf-Lease-Head: %s\nUwf-Lease-Expires: %d\n", id, id, head, expires)
	tree := strings.TrimSpace(fl.git("hash-object", "-t", "tree", "-w", "/dev/null"))
	lease := strings.TrimSpace(fl.git("commit-tree", tree, "-m", msg))
	fl.git("update-ref", "refs/remotes/origin/uwf/leases/"+id, lease)
	_, errs, code := fl.run(nil, "git-uwf", "thread", "step", id, "--agent", fl.agent)
	if code != 75 || !strings.Contains(errs, `leased on origin by worker ci-7\x1b]0;pwned\a\x1b[2J until`) {
		t.Errorf("step of a leased thread: exit %d, %q", code, errs)
	}
	if strings.ContainsAny(errs, "\x1b\x07") {
		t.Errorf("the lease's worker name reaches the terminal raw: %q", errs)
	}
	// An expired lease blocks nothing.
	old := strings.Replace(msg, fmt.Sprint(expires), fmt.Sprint(time.Now().Add(-time.Minute).UnixMilli()), 1)
	fl.git("update-ref", "refs/remotes/origin/uwf/leases/"+id, strings.TrimSpace(fl.git("commit-tree", tree, "-m", old)))
	fl.uwf("thread", "step", id, "--agent", fl.agent)
	// Nor does a lease dated year 9999: an expiry that far ahead is not a
	// lease a worker takes, it would block the thread forever.
	forever := strings.Replace(msg, fmt.Sprint(expires), fmt.Sprint(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()), 1)
	fl.git("update-ref", "refs/remotes/origin/uwf/leases/"+id, strings.TrimSpace(fl.git("commit-tree", tree, "-m", forever)))
	fl.uwf("thread", "step", id, "--agent", fl.agent)
}

// TestWorkerLeavesDivergentThreadsAlone: a step made by hand and not pushed
// survives a worker run, and a thread whose remote head reconcile refuses
// is not moved to it.
func TestWorkerLeavesDivergentThreadsAlone(t *testing.T) {
	fl := newFleet(t)
	remote := filepath.Join(filepath.Dir(fl.dir), "remote.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	fl.git("remote", "add", "origin", remote)
	ahead, invalid := fl.start("ahead"), fl.start("invalid")
	fl.uwf("push", "origin")
	// A step by hand, not pushed.
	fl.uwf("thread", "step", ahead, "--agent", fl.agent)
	handStep := strings.TrimSpace(fl.git("rev-parse", "refs/uwf/threads/"+ahead))
	// The remote's thread gets a commit that is not a thread step.
	valid := strings.TrimSpace(fl.git("rev-parse", "refs/uwf/threads/"+invalid))
	tree := strings.TrimSpace(fl.git("hash-object", "-t", "tree", "-w", "/dev/null"))
	junk := strings.TrimSpace(fl.git("commit-tree", tree, "-p", valid, "-m", "not a step"))
	fl.git("push", "-q", remote, junk+":refs/uwf/threads/"+invalid)

	_, errs, code := fl.run([]string{"SLEEP=0"}, "git-uwf", "worker", "origin", "-j", "1", "--until-idle", "--agent", fl.agent)
	if code != 0 {
		t.Fatalf("worker: exit %d\n%s", code, errs)
	}
	if got := strings.TrimSpace(fl.git("rev-parse", "refs/uwf/threads/"+ahead)); got != handStep {
		t.Errorf("the hand-made step %s was dropped: local head %s\n%s", handStep, got, errs)
	}
	if got := strings.TrimSpace(fl.git("rev-parse", "refs/uwf/threads/"+invalid)); got != valid {
		t.Errorf("local thread moved to %s, want %s (the remote's %s is invalid)\n%s", got, valid, junk, errs)
	}
	for _, want := range []string{"thread " + ahead + ": left alone", "thread " + invalid + ": left alone"} {
		if !strings.Contains(errs, want) {
			t.Errorf("the worker does not report %q:\n%s", want, errs)
		}
	}
}

// TestWorkerKeepsAStepItCannotPush: when the remote cannot be reached for
// the final push, the worker retries until its lease runs out, then keeps
// the step in the clone (exit 1) instead of discarding it, and a later
// push sends it.
func TestWorkerKeepsAStepItCannotPush(t *testing.T) {
	fl := newFleet(t)
	root := filepath.Dir(fl.dir)
	remote, gone := filepath.Join(root, "remote.git"), filepath.Join(root, "gone.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	fl.git("remote", "add", "origin", remote)
	id := fl.start("unreachable")
	fl.uwf("push", "origin")
	start := strings.TrimSpace(fl.git("rev-parse", "refs/uwf/threads/"+id))
	// The agent takes the remote away while it works.
	wrapper := filepath.Join(root, "away.sh")
	script := strings.TrimPrefix(fl.agent, "git-uwf agent pipe -- sh ")
	if err := os.WriteFile(wrapper, []byte(fmt.Sprintf("[ -d %q ] && mv %q %q\nexec sh %q\n", remote, remote, gone, script)), 0o755); err != nil {
		t.Fatal(err)
	}
	_, errs, code := fl.run([]string{"SLEEP=0"}, "git-uwf", "worker", "origin", "-j", "1", "--lease", "6s", "--until-idle",
		"--agent", "git-uwf agent pipe -- sh "+wrapper)
	if code != 1 || !strings.Contains(errs, "kept in this clone") {
		t.Fatalf("worker with the remote gone: exit %d, want 1 and the step kept\n%s", code, errs)
	}
	local := strings.TrimSpace(fl.git("rev-parse", "refs/uwf/threads/"+id))
	if local == start || strings.TrimSpace(fl.git("rev-parse", local+"^")) != start {
		t.Fatalf("local thread at %s, want the worker's step on top of %s\n%s", local, start, errs)
	}
	if err := os.Rename(gone, remote); err != nil {
		t.Fatal(err)
	}
	fl.uwf("push", "origin")
	if got := strings.TrimSpace(fl.git("--git-dir", remote, "rev-parse", "refs/uwf/threads/"+id)); got != local {
		t.Errorf("remote thread at %s after git uwf push, want the kept step %s", got, local)
	}
}
