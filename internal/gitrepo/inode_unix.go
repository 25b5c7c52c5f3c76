//go:build unix

package gitrepo

import (
	"io/fs"
	"syscall"
)

// inodeOf returns the inode number of fi (0 when unknown).
func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
