//go:build unix

package gitrepo

import (
	"os"
	"syscall"
)

// mapReadOnly maps the first size bytes of f read-only, or returns nil
// when it cannot (the caller then reads the file).
func mapReadOnly(f *os.File, size int64) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b
}

func unmap(b []byte) { _ = syscall.Munmap(b) }

// dropPages lets the kernel take back the pages of b that were read; a
// later read faults them in again from the file.
func dropPages(b []byte) { _ = syscall.Madvise(b, syscall.MADV_DONTNEED) }
