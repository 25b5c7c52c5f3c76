//go:build unix

package gitrepo

import (
	"os"
	"syscall"
)

// stopGit asks a git process to stop: on SIGTERM git removes its lock and
// temporary files before it exits.
func stopGit(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
