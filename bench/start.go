package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
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
	return b.initFigures()
}

// initLine is one line of GODEBUG=inittrace=1: a package's initialisation.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, (\S+) ms clock, `)

// initFigures runs `git-uwf version` startRuns times with
// GODEBUG=inittrace=1 and reports the medians of package initialisation:
// the slowest git-uwf package (the goal is that none takes a millisecond:
// build tables and schemas on first use) and all packages together, naming
// the three dearest. The runs are separate from the start pairs, whose
// timing the trace's output would disturb.
func (b *bench) initFigures() error {
	clock := map[string][]float64{}
	var total []float64
	for i := -1; i < startRuns; i++ {
		cmd := exec.Command(b.bin, "version")
		cmd.Dir = b.root
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("git-uwf version with GODEBUG=inittrace=1: %v: %s", err, stderr.Bytes())
		}
		if i < 0 {
			continue
		}
		var sum float64
		for _, l := range strings.Split(stderr.String(), "\n") {
			m := initLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			d, err := strconv.ParseFloat(m[2], 64)
			if err != nil {
				return fmt.Errorf("inittrace line %q: %v", l, err)
			}
			pkg := strings.ReplaceAll(m[1], "%2e", ".")
			clock[pkg] = append(clock[pkg], d)
			sum += d
		}
		total = append(total, sum)
	}
	if len(clock) == 0 {
		return fmt.Errorf("git-uwf version printed no GODEBUG=inittrace=1 lines")
	}
	type pkgTime struct {
		pkg string
		ms  float64
	}
	var all []pkgTime
	for pkg, xs := range clock {
		all = append(all, pkgTime{pkg, median(xs)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ms > all[j].ms || all[i].ms == all[j].ms && all[i].pkg < all[j].pkg })
	var own pkgTime // all is sorted: the first git-uwf package is the slowest
	var dearest []string
	for _, p := range all {
		if own.pkg == "" && strings.HasPrefix(p.pkg, "github.com/git-uwf/") {
			own = p
		}
		if len(dearest) < 3 {
			dearest = append(dearest, fmt.Sprintf("%s %.2g", p.pkg, p.ms))
		}
	}
	if own.pkg == "" {
		return fmt.Errorf("no git-uwf package in the GODEBUG=inittrace=1 lines of git-uwf version")
	}
	b.add(row{figure: "package initialisation, slowest git-uwf package", value: own.ms, unit: "ms", goal: "≤ 1 ms",
		note: fmt.Sprintf("(%s)", strings.TrimPrefix(own.pkg, "github.com/git-uwf/git-uwf/"))})
	b.add(row{figure: "package initialisation, all packages", value: median(total), unit: "ms", goal: "—",
		note: fmt.Sprintf("(dearest: %s)", strings.Join(dearest, ", "))})
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
