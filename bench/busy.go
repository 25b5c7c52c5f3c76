package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// pair is one figure measured idle and then beside the load, each ratio
// against its baseline from the same pass.
type pair struct {
	idle, busy row
}

// twoPasses runs fig twice, each pass in a directory of its own under
// b.root (fixtures of the -fixtures directory are shared): idle, then
// beside one spinning process per core, started just before the busy pass
// and stopped just after it, also when the pass fails.
func (b *bench) twoPasses(ctx context.Context, name string, fig func(*bench, context.Context) error) error {
	idle, _, err := b.pass(ctx, fig, "idle", false)
	if err != nil {
		return fmt.Errorf("idle pass: %w", err)
	}
	busy, note, err := b.pass(ctx, fig, "busy", true)
	if err != nil {
		return fmt.Errorf("busy pass: %w", err)
	}
	if len(idle) != len(busy) {
		return fmt.Errorf("the idle pass gave %d rows, the busy pass %d", len(idle), len(busy))
	}
	for i := range idle {
		if idle[i].figure != busy[i].figure {
			return fmt.Errorf("row %d is %q idle but %q busy", i, idle[i].figure, busy[i].figure)
		}
		b.pairs = append(b.pairs, pair{idle[i], busy[i]})
	}
	b.loads = append(b.loads, fmt.Sprintf("%s: %s", name, note))
	return nil
}

// pass runs fig on a copy of b whose rows start empty and whose root is
// b.root/label, and returns the rows it added. With busy, the load runs
// for exactly the length of the pass; note says how much CPU it took.
func (b *bench) pass(ctx context.Context, fig func(*bench, context.Context) error, label string, busy bool) ([]row, string, error) {
	p := *b
	p.root, p.rows, p.pairs, p.loads = filepath.Join(b.root, label), nil, nil, nil
	if err := os.MkdirAll(p.root, 0o755); err != nil {
		return nil, "", err
	}
	if !busy {
		logf("%s pass (load average %s)", label, loadAverage())
		err := fig(&p, ctx)
		return p.rows, "", err
	}
	l, err := startLoad(runtime.NumCPU())
	if err != nil {
		return nil, "", err
	}
	defer l.stop()
	logf("%s pass beside %d spinning processes (load average %s)", label, len(l.procs), loadAverage())
	if err := fig(&p, ctx); err != nil {
		return nil, "", err
	}
	cpu, wall := l.stop()
	note := fmt.Sprintf("%d spinning processes used %.2f cores for %.0f s (load average after: %s)",
		runtime.NumCPU(), cpu.Seconds()/wall.Seconds(), wall.Seconds(), loadAverage())
	logf("load: %s", note)
	return p.rows, note, nil
}

// load is a CPU-bound load beside the measured processes: child processes
// of the bench's own binary (-spin), each spinning in a tight loop until
// its standard input closes. If the bench dies, even by SIGKILL, the
// kernel closes the pipes and the children exit.
type load struct {
	procs []*exec.Cmd
	stdin []io.Closer
	start time.Time
}

func startLoad(n int) (*load, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start the load: %w", err)
	}
	l := &load{start: time.Now()}
	for i := 0; i < n; i++ {
		cmd := exec.Command(exe, "-spin")
		in, err := cmd.StdinPipe()
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			l.stop()
			return nil, fmt.Errorf("start the load: %s -spin: %w", exe, err)
		}
		l.procs, l.stdin = append(l.procs, cmd), append(l.stdin, in)
	}
	return l, nil
}

// stop ends the load (a second call does nothing) and returns the CPU
// time it used and how long it ran.
func (l *load) stop() (cpu, wall time.Duration) {
	for _, in := range l.stdin {
		in.Close()
	}
	for _, cmd := range l.procs {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	l.procs, l.stdin = nil, nil
	return cpu, time.Since(l.start)
}

// spin is one process of the load: it spins until its standard input
// closes (the bench stopped it or died).
func spin() {
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	var x uint64
	for {
		x = x*6364136223846793005 + 1442695040888963407
	}
}

// loadAverage is the first field of /proc/loadavg ("?" elsewhere).
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

// printPairs prints the figures of twoPasses side by side.
func (b *bench) printPairs() {
	fmt.Println("| figure | baseline | idle | busy | goal |")
	fmt.Println("|---|---|---|---|---|")
	cell := func(r row) string {
		if r.baseline == "" {
			return fmt.Sprintf("%s %s", num(r.value), r.unit)
		}
		return fmt.Sprintf("%s vs %s %s, **%s**", num(r.value), num(r.base), r.unit, r.ratio())
	}
	for _, p := range b.pairs {
		base := p.idle.baseline
		if base == "" {
			base = "—"
		}
		fig := p.idle.figure
		if p.idle.note != "" {
			fig += " " + p.idle.note
		}
		if p.busy.note != p.idle.note {
			fig += " / busy: " + p.busy.note
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", fig, base, cell(p.idle), cell(p.busy), p.idle.goal)
	}
	fmt.Println()
	for _, l := range b.loads {
		fmt.Println("busy load, " + l)
	}
}
