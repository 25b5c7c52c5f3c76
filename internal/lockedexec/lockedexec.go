// Package lockedexec starts child processes from a goroutine locked to its
// OS thread until the child has been waited for.
//
// On Linux a parent-death signal (syscall.SysProcAttr.Pdeathsig) is sent
// when the thread that started the child ends, not when the process does,
// and a Go program ends a thread whenever a goroutine ends while locked to
// it. A child started with such a signal from an ordinary goroutine can
// therefore be killed at any moment while its parent runs on. Every child
// git-uwf starts with a parent-death signal goes through this package.
package lockedexec

import (
	"os/exec"
	"runtime"
)

// Start starts cmd from a goroutine locked to its thread, which then waits
// for cmd and sends Wait's result on the channel it returns. When cmd
// cannot be started, Start returns that error and no channel.
func Start(cmd *exec.Cmd) (<-chan error, error) {
	started := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Unlocked only once the child is reaped: the thread then goes
		// back to the runtime instead of ending.
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return done, nil
}

// Run starts cmd as Start does and waits for it, as cmd.Run does.
func Run(cmd *exec.Cmd) error {
	done, err := Start(cmd)
	if err != nil {
		return err
	}
	return <-done
}
