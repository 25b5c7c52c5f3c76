package objects

import "syscall"

// dropPages lets go of the resident pages of a mapping made by mapFile:
// the next read of them faults them in again from the page cache.
func dropPages(b []byte) {
	if b != nil {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
