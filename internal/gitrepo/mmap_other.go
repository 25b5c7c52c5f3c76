//go:build !unix

package gitrepo

import "os"

func mapReadOnly(*os.File, int64) []byte { return nil }

func unmap([]byte) {}

func dropPages([]byte) {}
