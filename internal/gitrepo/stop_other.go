//go:build !unix

package gitrepo

import "os"

// stopGit ends a git process; there is no signal to ask it to stop here.
func stopGit(p *os.Process) error { return p.Kill() }
