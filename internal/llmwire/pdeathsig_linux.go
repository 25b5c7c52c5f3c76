package llmwire

import "syscall"

// setParentDeathSignal asks the kernel to kill the program if the process
// that started it dies first (Linux only).
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
