//go:build unix

package mmapfile

import (
	"os"
	"syscall"
)

// Map maps the first size bytes of f read-only, or returns nil when it
// cannot (the caller then reads the file).
func Map(f *os.File, size int64) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return b
}

// Unmap releases a mapping made by Map; nil is ignored.
func Unmap(b []byte) {
	if b != nil {
		_ = syscall.Munmap(b)
	}
}
