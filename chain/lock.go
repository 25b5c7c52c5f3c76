package chain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// BusyError means another process holds the thread's lock. It is
// retryable: try again when that process is done.
type BusyError struct {
	Thread ThreadID
	PID    int
}

func (e *BusyError) Error() string {
	who := "another git uwf process"
	if e.PID > 0 {
		who = fmt.Sprintf("another git uwf process (pid %d)", e.PID)
	}
	return fmt.Sprintf("thread %s is busy: %s is stepping it; retry when it has finished", e.Thread, who)
}

// ErrBusy matches every *BusyError with errors.Is.
var ErrBusy = errors.New("thread busy")

// Is makes errors.Is(err, ErrBusy) work.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

func (r *Repo) lockPath(id ThreadID) string {
	return filepath.Join(r.UwfDir(), "locks", string(id)+".lock")
}

// ownLockWait bounds the waits of LockThread for a lock this process
// released (1, 2, 4, … ms; about 60 ms in all).
const ownLockWait = 32 * time.Millisecond

// LockThread takes the exclusive per-thread lock without waiting (but for a
// lock this process last held and released, which a child being started
// can hold for a moment after its release). The lock
// is an flock on a file under the common git dir: the kernel releases it
// when the holder dies, so a kill -9 never leaves a thread stuck; the pid
// written into the file is informational (a busy message names it, and it
// tells a lock this process released from one another process took).
func (r *Repo) LockThread(id ThreadID) (unlock func(), err error) {
	path := r.lockPath(id)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock thread %s: %w", id, err)
	}
	file, release, ok, err := tryLockFile(path)
	// The last holder was this process, which released the lock: a child
	// it was starting meanwhile (another goroutine's git, an agent) holds
	// a copy of every descriptor from fork until exec closes it, and with
	// it the lock, for a moment. Retry for that moment.
	for wait := time.Millisecond; !ok && err == nil && wait <= ownLockWait && r.releasedHere(id, path); wait *= 2 {
		time.Sleep(wait)
		file, release, ok, err = tryLockFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("lock thread %s: %w", id, err)
	}
	if !ok {
		return nil, &BusyError{Thread: id, PID: readPID(path)}
	}
	// Record who holds it, for the busy message of a competing process.
	// The pid is written in place, padded to a fixed width: truncating and
	// rewriting the file makes ext4 flush it on close (auto_da_alloc),
	// which cost more than a millisecond on every step.
	if f, err := os.OpenFile(path, os.O_WRONLY, 0o644); err == nil {
		_, _ = f.WriteAt([]byte(fmt.Sprintf("%-19d\n", os.Getpid())), 0)
		f.Close()
	}
	r.mu.Lock()
	r.held[id] = true
	if file != nil {
		if r.lockFiles == nil {
			r.lockFiles = map[ThreadID]*os.File{}
		}
		r.lockFiles[id] = file
	}
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.held, id)
		delete(r.lockFiles, id)
		r.mu.Unlock()
		release()
	}, nil
}

// releasedHere reports whether this process took the thread's lock last
// (its pid is in the lock file) and has released it since: a lock another
// goroutine still holds is busy, and no wait makes it free sooner.
func (r *Repo) releasedHere(id ThreadID, path string) bool {
	r.mu.Lock()
	held := r.held[id]
	r.mu.Unlock()
	return !held && readPID(path) == os.Getpid()
}

// ThreadLockFile returns the open lock file of a thread lock this process
// holds (nil when it holds none, or where locks are not files). Handing it
// to a child process keeps the thread locked until that child is gone too,
// even if this process dies first.
func (r *Repo) ThreadLockFile(id ThreadID) *os.File {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lockFiles[id]
}

// threadRunning reports whether some process holds the thread's lock.
func (r *Repo) threadRunning(id ThreadID) bool {
	r.mu.Lock()
	mine := r.held[id]
	r.mu.Unlock()
	if mine {
		return false
	}
	path := r.lockPath(id)
	if _, err := os.Stat(path); err != nil {
		return false
	}
	fl := flock.New(path)
	ok, err := fl.TryRLock()
	if err != nil {
		return false
	}
	if ok {
		_ = fl.Unlock()
		return false
	}
	return true
}

func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	pid, _ := strconv.Atoi(f[0])
	return pid
}
