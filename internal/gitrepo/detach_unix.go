//go:build unix

package gitrepo

import (
	"os/exec"
	"syscall"
)

// detach makes cmd start in a session of its own, so that no terminal
// signal and no end of this process reaches it.
func detach(cmd *exec.Cmd) bool {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return true
}
