//go:build !linux

package gitrepo

import "os"

// widenPipe does nothing where pipe buffers cannot be resized.
func widenPipe(*os.File, int) {}
