//go:build !unix

package scheduler

import (
	"os"
	"syscall"
)

// StepChildAttrs is nil where process groups do not exist.
func StepChildAttrs() *syscall.SysProcAttr { return nil }

// DetachedAttrs is nil where sessions do not exist.
func DetachedAttrs() *syscall.SysProcAttr { return nil }

// Interrupt kills the process: there is no interrupt signal here.
func Interrupt(p *os.Process) error { return p.Kill() }

func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p != nil
}

func setParentDeathSignal(*syscall.SysProcAttr, syscall.Signal) {}
