//go:build !unix

package gitrepo

import "os/exec"

// detach reports that cmd cannot run in a session of its own here.
func detach(*exec.Cmd) bool { return false }
