package lockedexec

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestChildOutlivesCallersThread: a child started with a parent-death
// signal from a goroutine that then ends locked to its thread (which ends
// the thread) keeps running, because Start started it from a thread of its
// own. Started with cmd.Start from that goroutine, it would be killed.
func TestChildOutlivesCallersThread(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	var done <-chan error
	go func() {
		runtime.LockOSThread() // never unlocked: this thread ends with the goroutine
		var err error
		done, err = Start(cmd)
		started <- err
	}()
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("the child ended when the caller's thread did: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("a killed child exited cleanly")
	}
}

func TestRun(t *testing.T) {
	if err := Run(exec.Command("true")); err != nil {
		t.Fatalf("true: %v", err)
	}
	if err := Run(exec.Command("false")); err == nil {
		t.Fatal("false: no error")
	}
	if err := Run(exec.Command("/nonexistent/program")); err == nil {
		t.Fatal("a program that does not exist: no error")
	}
}
