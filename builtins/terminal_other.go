//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package builtins

import (
	"os"
	"os/exec"
)

// runOnTerminal runs cmd, whose stdio is tty.
func runOnTerminal(cmd *exec.Cmd, _ *os.File) error { return cmd.Run() }
