//go:build !unix

package mmapfile

import "os"

// Map does not map files here: the caller reads the file.
func Map(*os.File, int64) []byte { return nil }

// Unmap does nothing here.
func Unmap([]byte) {}
