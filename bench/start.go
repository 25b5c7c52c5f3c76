package main

import (
	"context"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// startRuns is how many pairs the start-up figure takes: the processes are
// short, so more pairs cost little and steady the median.
const startRuns = 31

// startFigure measures process start: `git-uwf version` against
// `git --version`, alternately, in wall time and in CPU time (user +
// system, from the kernel's accounting, which moves less than wall time on
// a busy machine).
func (b *bench) startFigure(context.Context) error {
	var wall, cpu [2][]float64
	for i := -1; i < startRuns; i++ {
		for k, argv := range [2][]string{{b.bin, "version"}, {"git", "--version"}} {
			w, c, err := startOnce(b.root, argv)
			if err != nil {
				return err
			}
			if i >= 0 {
				wall[k] = append(wall[k], ms(w))
				cpu[k] = append(cpu[k], ms(c))
			}
		}
	}
	b.add(row{figure: "process start, `git-uwf version`", baseline: "`git --version`",
		value: median(wall[0]), base: median(wall[1]), unit: "ms", goal: "≤ 2×",
		note: fmt.Sprintf("(%d pairs)", startRuns)})
	b.add(row{figure: "process start, CPU (user + sys)", baseline: "`git --version`",
		value: median(cpu[0]), base: median(cpu[1]), unit: "ms", goal: "—"})
	return nil
}

func startOnce(dir string, argv []string) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("%v: %v: %s", argv, err, out)
	}
	wall = time.Since(start)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return wall, cpu, nil
}
