//go:build unix

package scheduler

import (
	"os"
	"syscall"
)

// StepChildAttrs puts a step process of `--all` in a process group of its
// own, so a terminal's Ctrl-C reaches only the scheduler, which passes one
// interrupt on; the child is interrupted too when the scheduler dies.
func StepChildAttrs() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(a, syscall.SIGTERM)
	return a
}

// DetachedAttrs starts a background step in a session of its own: it
// outlives the command that started it and no terminal signal reaches it.
func DetachedAttrs() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// Interrupt asks a process to stop the way Ctrl-C does.
func Interrupt(p *os.Process) error { return p.Signal(syscall.SIGINT) }

// alive reports whether a process with the pid exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
