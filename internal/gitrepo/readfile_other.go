//go:build !unix

package gitrepo

import "os"

// readSmallFile reads a whole small file (a loose ref).
func readSmallFile(path string) ([]byte, error) { return os.ReadFile(path) }
