//go:build unix && !linux

package serveexec

import "syscall"

// sysProcAttr puts the viewer in a process group of its own.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
