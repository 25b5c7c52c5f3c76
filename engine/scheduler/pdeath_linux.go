package scheduler

import "syscall"

// setParentDeathSignal has the kernel send sig to the child when its
// parent dies (Linux only).
func setParentDeathSignal(a *syscall.SysProcAttr, sig syscall.Signal) { a.Pdeathsig = sig }
