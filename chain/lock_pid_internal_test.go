package chain

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// TestLockRecordsPID: a second holder is told the pid of the first, whatever
// the lock file held before.
func TestLockRecordsPID(t *testing.T) {
	for _, before := range []string{"", "7\n", "123456789012345678901234567890\n"} {
		dir := t.TempDir()
		if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		a, err := Open(context.Background(), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Open(context.Background(), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		id := ThreadID("01M812N4MAX7F305HM1JJJFJNG")
		if before != "" {
			if err := os.MkdirAll(a.UwfDir()+"/locks", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(a.lockPath(id), []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		unlock, err := a.LockThread(id)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.LockThread(id)
		var busy *BusyError
		if !errors.As(err, &busy) || busy.PID != os.Getpid() {
			t.Errorf("lock file held %q before: second lock gave %v (pid %v), want busy with pid %d", before, err, busy, os.Getpid())
		}
		unlock()
		if u, err := b.LockThread(id); err != nil {
			t.Errorf("after unlock: %v", err)
		} else {
			u()
		}
	}
}

// TestLockReleasedHere: LockThread waits a moment only for a lock this
// process took last and has released (a child being started may still hold
// it); one it still holds, or one another process took, is busy at once.
func TestLockReleasedHere(t *testing.T) {
	r := newLockRepo(t)
	id := ThreadID("01M812N4MAX7F305HM1JJJFJNG")
	path := r.lockPath(id)
	unlock, err := r.LockThread(id)
	if err != nil {
		t.Fatal(err)
	}
	if r.releasedHere(id, path) {
		t.Error("a lock this process holds counts as released")
	}
	var busy *BusyError
	if _, err := r.LockThread(id); !errors.As(err, &busy) || busy.PID != os.Getpid() {
		t.Errorf("second lock: %v, want busy with pid %d", err, os.Getpid())
	}
	unlock()
	if !r.releasedHere(id, path) {
		t.Error("a lock this process released does not count as released")
	}
	if err := os.WriteFile(path, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r.releasedHere(id, path) {
		t.Error("a lock pid 1 took counts as released here")
	}
}

// newLockRepo opens a new repository for the lock tests.
func newLockRepo(t *testing.T) *Repo {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	r, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
