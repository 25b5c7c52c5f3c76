//go:build !unix

package gitrepo

import "os"

// readSmallFile reads a whole small file (a loose ref), or errTooLarge when
// it holds more than limit bytes.
func readSmallFile(path string, limit int) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err == nil && len(data) > limit {
		return nil, errTooLarge
	}
	return data, err
}
