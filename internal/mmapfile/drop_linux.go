package mmapfile

import "syscall"

// DropPages lets go of the resident pages of a mapping made by Map: the
// next read of them faults them in again from the page cache.
func DropPages(b []byte) {
	if b != nil {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
