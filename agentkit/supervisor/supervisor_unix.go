//go:build unix

// Package supervisor is the agent supervisor of agentkit.Run: a copy of
// the calling program, started as the leader of the agent's process group,
// that kills the group when the program that started it dies. It uses the
// standard library only, so that a program can run it before initialising
// anything else (see package early).
package supervisor

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Arg is the first argument that makes a program that calls [IfAsked]
// act as an agent's supervisor; agentkit.Run starts the supervisor as
// <program> Arg <nfiles> <path> <argv0> <args…>.
const Arg = "__uwf-agent-supervisor"

// IfAsked makes the calling program an agent supervisor when agentkit.Run
// started it as one, and then exits; otherwise it returns at once. A
// program names itself in agentkit.Invocation.Supervisor only if it calls
// this first thing (git-uwf imports package early, which calls it before
// the other packages' initialisation).
//
// The supervisor is the leader of the agent's process group. It starts the
// agent in that group and waits for it, and it reads a pipe whose only
// writer is the process that called Run: when that process dies, however it
// dies (SIGKILL included), the pipe reports end of file and the supervisor
// kills the whole group, itself included. Files the caller asked it to
// hold (the thread lock) stay open until then, so whatever they lock stays
// locked until no process of the group is left. The agent's exit status
// (or the signal that ended it) becomes the supervisor's.
func IfAsked() {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	os.Exit(supervise(os.Args[2:]))
}

// supervise runs args = [nfiles, path, argv0, args…]; fds 3 … 3+nfiles-1
// are the parent's pipe and the files to hold.
func supervise(args []string) int {
	// Spawn from one locked thread that lives as long as the agent, so
	// the agent's parent-death signal fires only when this process dies.
	runtime.LockOSThread()
	nfiles, err := strconv.Atoi(args[0])
	if err != nil || len(args) < 3 || nfiles < 1 {
		fmt.Fprintln(os.Stderr, "agent supervisor: bad arguments")
		return 2
	}
	if syscall.Getpgrp() != os.Getpid() {
		// Only Run starts a supervisor, as the leader of a new group; any
		// other caller must not have its own group killed.
		fmt.Fprintln(os.Stderr, "agent supervisor: not the leader of its own process group; only agentkit.Run starts it")
		return 2
	}
	for fd := 3; fd < 3+nfiles; fd++ {
		// Ours only: the agent must not inherit them.
		syscall.CloseOnExec(fd)
	}
	parent := os.NewFile(3, "parent")
	// The engine signals the whole group; the agent gets the signal itself
	// and the supervisor waits for it to end.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	cmd := exec.Command(args[1], args[3:]...)
	cmd.Args[0] = args[2]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setParentDeathSignal(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "start agent %q: %v\n", args[2], err)
		return 127
	}
	// teardown is held while the group is being killed: the agent's death
	// must not let this process exit (and release what it holds) before
	// the rest of the group is gone.
	var teardown sync.Mutex
	go func() {
		_, _ = io.Copy(io.Discard, parent)
		// The parent is gone: nothing of the group may outlive it.
		teardown.Lock()
		killGroupButSelf()
		_ = syscall.Kill(0, syscall.SIGKILL)
	}()
	_ = cmd.Wait()
	teardown.Lock()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond)
		return 128 + int(sig)
	}
	return cmd.ProcessState.ExitCode()
}

// killGroupButSelf kills the other processes of the supervisor's group and
// waits (up to five seconds) until none of them runs any more, so that the
// files the supervisor holds are released only after the group is gone.
// Where the group cannot be listed it does nothing.
func killGroupButSelf() {
	self := os.Getpid()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		members := groupMembers(self, self)
		if len(members) == 0 {
			return
		}
		for _, pid := range members {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
