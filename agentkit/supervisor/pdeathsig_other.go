//go:build unix && !linux

package supervisor

import "syscall"

// setParentDeathSignal is a no-op where the kernel has no parent-death
// signal.
func setParentDeathSignal(*syscall.SysProcAttr) {}
