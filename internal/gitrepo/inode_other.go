//go:build !unix

package gitrepo

import "io/fs"

// inodeOf returns 0: inode numbers are not available here.
func inodeOf(fs.FileInfo) uint64 { return 0 }
