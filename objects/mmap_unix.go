//go:build unix

package objects

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only, or returns nil when it
// cannot (the caller then reads with ReadAt).
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return b
}

// unmapFile releases a mapping made by mapFile.
func unmapFile(b []byte) {
	if b != nil {
		_ = syscall.Munmap(b)
	}
}
