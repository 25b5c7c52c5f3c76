//go:build !unix

package serveexec

import "syscall"

// sysProcAttr asks for nothing special where there are no process groups.
func sysProcAttr() *syscall.SysProcAttr { return nil }
