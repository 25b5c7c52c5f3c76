// Command rsswrap runs a command and prints, on its standard output, the
// command's wall time, CPU time (user + sys, with the processes it waited
// for) and peak RSS, as three numbers: nanoseconds, nanoseconds, KiB. The
// command's own standard output is discarded.
//
// The bench measures peak RSS through it because on Linux a child's
// ru_maxrss is never lower than the peak RSS of the process that spawned
// it: Go starts children with vfork semantics, and exec folds the
// high-water mark of the address space it leaves (the spawner's) into the
// child's. rsswrap imports little, so the floor it passes on is a few MiB
// instead of the bench's own peak, which grows with its fixtures.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rsswrap command [args...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rsswrap:", err)
		os.Exit(1)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "rsswrap: no rusage on this system")
		os.Exit(1)
	}
	fmt.Println(wall.Nanoseconds(), ru.Utime.Nano()+ru.Stime.Nano(), ru.Maxrss)
}
