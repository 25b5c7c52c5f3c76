//go:build !unix

package objects

import "os"

// mapFile does not map files here: the table is read with ReadAt.
func mapFile(*os.File, int64) []byte { return nil }

func unmapFile([]byte) {}
