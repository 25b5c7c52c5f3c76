//go:build !unix

package llmwire

import "syscall"

// setOwnGroup does nothing where there are no process groups.
func setOwnGroup(*syscall.SysProcAttr) {}
