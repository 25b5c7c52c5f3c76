package gitrepo

import (
	"os"
	"syscall"
)

// fSetPipeSize is F_SETPIPE_SZ (linux/fcntl.h), which package syscall
// does not name.
const fSetPipeSize = 1031

// widenPipe asks the kernel for a pipe buffer of up to n bytes on f, so
// that a writer producing many small answers blocks (and wakes the reader)
// less often. It is best effort: the default size works, only slower.
func widenPipe(f *os.File, n int) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSize, uintptr(n))
	})
}
