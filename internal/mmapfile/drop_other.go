//go:build !linux

package mmapfile

// DropPages does nothing here: the system reclaims the pages of a mapping
// when it needs them.
func DropPages([]byte) {}
