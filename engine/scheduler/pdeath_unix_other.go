//go:build unix && !linux

package scheduler

import "syscall"

func setParentDeathSignal(*syscall.SysProcAttr, syscall.Signal) {}
