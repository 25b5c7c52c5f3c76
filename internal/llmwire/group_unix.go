//go:build unix

package llmwire

import "syscall"

// setOwnGroup puts the program in a process group of its own, so that a
// terminal's Ctrl-C reaches git-uwf only: git-uwf then cancels the request
// and kills the program itself, and reports the interruption as such
// instead of as the program's failure.
func setOwnGroup(attr *syscall.SysProcAttr) { attr.Setpgid = true }
