//go:build unix

package chain

import (
	"errors"
	"os"
	"syscall"
)

// tryLockFile takes an exclusive flock on path without waiting. file is the
// open lock file (it can be handed to a child, which then holds the lock
// with us); release closes it, and the kernel drops the lock when the last
// descriptor of that open file is closed, in this process or a child.
func tryLockFile(path string) (file *os.File, release func(), ok bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, nil, false, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, nil, false, nil
	}
	if err != nil {
		f.Close()
		return nil, nil, false, err
	}
	// No LOCK_UN: a supervisor that inherited the descriptor keeps the
	// lock until it is gone too.
	return f, func() { _ = f.Close() }, true, nil
}
