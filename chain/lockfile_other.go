//go:build !unix

package chain

import (
	"os"

	"github.com/gofrs/flock"
)

// tryLockFile takes an exclusive lock on path without waiting; file is nil
// here (agents are only spawned on Unix).
func tryLockFile(path string) (file *os.File, release func(), ok bool, err error) {
	fl := flock.New(path)
	ok, err = fl.TryLock()
	if err != nil || !ok {
		return nil, nil, false, err
	}
	return nil, func() { _ = fl.Unlock() }, true, nil
}
