//go:build unix

package gitrepo

import (
	"io/fs"
	"os"
	"syscall"
)

// deviceOf returns the device fi is on.
func deviceOf(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true
}

// ownedByUs reports whether fi belongs to the effective user, as git's
// safe.directory check requires of a repository it trusts without config.
func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
