//go:build unix

package gitrepo

import (
	"io/fs"
	"syscall"
)

// readSmallFile reads a whole small file (a loose ref) with bare system
// calls: open, read until end of file (twice for a loose ref: its bytes,
// then the end), close. os.ReadFile also stats the file and puts the
// descriptor through the runtime poller's set-up, five to seven calls more
// per file, which a listing of thousands of loose refs (the first fetch of
// many threads leaves them) pays for each one.
//
// It does not follow a symbolic link (errSymlink), does not wait for a
// writer (a FIFO reads as empty) and reads no more than limit bytes
// (errTooLarge): a loose ref is a line in a file, and each of these is
// left to git. Other errors are *fs.PathError, as os.ReadFile's are.
func readSmallFile(path string, limit int) ([]byte, error) {
	var fd int
	for {
		var err error
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err == nil {
			break
		}
		switch err {
		case syscall.EINTR:
			continue
		case syscall.ELOOP, syscall.EMLINK: // a link, as Linux and the BSDs say it
			return nil, errSymlink
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	data := make([]byte, 0, 128) // a loose ref is 41 bytes, a symbolic one rarely 100
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := syscall.Read(fd, data[len(data):min(cap(data), limit+1)])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return data, nil
		}
		data = data[:len(data)+n]
		if len(data) > limit {
			return nil, errTooLarge
		}
	}
}
