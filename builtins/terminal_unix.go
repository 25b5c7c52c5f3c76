//go:build linux || darwin || freebsd || netbsd || openbsd

package builtins

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"unsafe"
)

// runOnTerminal runs cmd (whose stdio is tty) in the terminal's
// foreground. An agent spawned by the engine sits in a background process
// group, where an editor would be stopped by SIGTTOU/SIGTTIN; so the
// editor gets its own foreground group and the previous foreground group is
// restored afterwards (with SIGTTOU ignored meanwhile, as shells do).
func runOnTerminal(cmd *exec.Cmd, tty *os.File) error {
	fd := tty.Fd()
	var fg int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(syscall.TIOCGPGRP), uintptr(unsafe.Pointer(&fg))); errno != 0 || int(fg) == syscall.Getpgrp() {
		return cmd.Run()
	}
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	cmd.SysProcAttr = &syscall.SysProcAttr{Foreground: true, Ctty: int(fd)}
	err := cmd.Run()
	syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(syscall.TIOCSPGRP), uintptr(unsafe.Pointer(&fg)))
	return err
}
