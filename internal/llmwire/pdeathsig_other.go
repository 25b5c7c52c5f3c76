//go:build !linux

package llmwire

import "syscall"

// setParentDeathSignal is a no-op where the kernel has no parent-death
// signal; the program's own timeout ends it.
func setParentDeathSignal(*syscall.SysProcAttr) {}
