//go:build unix

package chain

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestLockHeldByAStartingChild: after this process releases a thread lock,
// a child it was starting at that moment holds a copy of the lock's
// descriptor until its exec closes it. A new lock waits for that (it is
// modelled by a duplicate descriptor closed a little later), but not for
// a copy that stays open, nor for a lock another process last took.
func TestLockHeldByAStartingChild(t *testing.T) {
	r := newLockRepo(t)
	id := ThreadID("01M812N4MAX7F305HM1JJJFJNG")
	// lockedByACopy takes the lock, keeps a copy of its descriptor and
	// releases it: the copy holds the lock until closed.
	lockedByACopy := func(t *testing.T) int {
		t.Helper()
		unlock, err := r.LockThread(id)
		if err != nil {
			t.Fatal(err)
		}
		// The copy is closed on exec, as the lock file is: a git this
		// test binary starts meanwhile must not keep the lock.
		syscall.ForkLock.RLock()
		fd, err := syscall.Dup(int(r.ThreadLockFile(id).Fd()))
		if err == nil {
			syscall.CloseOnExec(fd)
		}
		syscall.ForkLock.RUnlock()
		if err != nil {
			t.Fatal(err)
		}
		unlock()
		return fd
	}

	t.Run("a copy closed soon", func(t *testing.T) {
		fd := lockedByACopy(t)
		closed := make(chan struct{})
		go func() {
			time.Sleep(2 * time.Millisecond)
			syscall.Close(fd)
			close(closed)
		}()
		unlock, err := r.LockThread(id)
		<-closed
		if err != nil {
			t.Fatalf("lock after the copy was closed: %v", err)
		}
		unlock()
	})
	t.Run("a copy left open", func(t *testing.T) {
		fd := lockedByACopy(t)
		defer syscall.Close(fd)
		_, err := r.LockThread(id)
		var busy *BusyError
		if !errors.As(err, &busy) || busy.PID != os.Getpid() {
			t.Fatalf("lock beside an open copy: %v, want busy with pid %d", err, os.Getpid())
		}
	})
	t.Run("another process's lock", func(t *testing.T) {
		fd := lockedByACopy(t)
		defer syscall.Close(fd)
		if err := os.WriteFile(r.lockPath(id), []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := r.LockThread(id)
		var busy *BusyError
		if !errors.As(err, &busy) || busy.PID != 1 {
			t.Fatalf("lock held by pid 1: %v, want busy with pid 1", err)
		}
	})
}
