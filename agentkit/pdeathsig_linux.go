package agentkit

import "syscall"

// setParentDeathSignal asks the kernel to SIGKILL the child if the process
// that started it dies first (Linux only): an agent killed with SIGKILL
// then cannot leave its own CLI running.
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
