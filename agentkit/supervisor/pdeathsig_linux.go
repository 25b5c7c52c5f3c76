package supervisor

import "syscall"

// setParentDeathSignal asks the kernel to SIGKILL the agent if the
// supervisor dies first.
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
