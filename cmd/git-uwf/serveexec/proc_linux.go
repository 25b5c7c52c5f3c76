package serveexec

import "syscall"

// sysProcAttr puts the viewer in a process group of its own and asks the
// kernel to send it SIGTERM if git-uwf dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
