// Command bench measures what git-uwf costs beyond what git itself needs
// for the same work, and prints one table. Every figure is the median of
// several runs, and its baseline is measured in the same run, interleaved
// with it, so the ratio survives a noisy machine.
//
// It builds the git-uwf binary and scale fixtures (10,000 threads, a
// 1,000-step thread, 100,000 nodes) in a temporary directory with
// `git fast-import`, then measures the real binary. Run it with `make bench`
// or `go run ./bench [-runs N] [-threads N] [-steps N] [-nodes N] [-fleet N]
// [-worker-threads N] [-transfer N] [-scale N] [-fixtures DIR] [-busy]
// [-only figures]`. With -busy, the figures a user waits on (start-up,
// step, list, read) run twice, idle and then beside a CPU-bound load the
// bench starts and stops itself, and are printed side by side.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type config struct {
	runs    int
	threads int
	steps   int
	nodes   int
	keep    bool
	only    string
	// fleet and workerThreads size the step --all and worker figures.
	fleet         int
	workerThreads int
	// transfer sizes the fetch and push of new threads.
	transfer int
	// scale is the thread count of the scale100k figure; fixtures, when
	// set, is a directory where the thread fixtures are kept and reused.
	scale    int
	fixtures string
	// busy runs the busyable figures twice, idle and beside a load; spin
	// makes this process one process of that load.
	busy, spin bool
}

func main() {
	var c config
	flag.IntVar(&c.runs, "runs", 7, "runs per figure (the median is reported; at least 5)")
	flag.IntVar(&c.threads, "threads", 10000, "threads in the listing fixture")
	flag.IntVar(&c.steps, "steps", 1000, "steps of the long thread")
	flag.IntVar(&c.nodes, "nodes", 100000, "nodes in the alias index fixture")
	flag.BoolVar(&c.keep, "keep", false, "keep the fixtures (their directory is printed)")
	flag.StringVar(&c.only, "only", "", "comma-separated figures to run: start,step,scalestep,inproc,list,read,alias,sync,transfer,review,fleet,workers,serve,scale100k (scale100k runs only when named)")
	flag.IntVar(&c.fleet, "fleet", 1000, "idle threads stepped by the step --all figure")
	flag.IntVar(&c.workerThreads, "worker-threads", 40, "one-step threads processed by the worker figures")
	flag.IntVar(&c.transfer, "transfer", 1000, "new threads moved by the fetch and push figures")
	flag.IntVar(&c.scale, "scale", 100000, "threads in the large fixture of the scale100k figure")
	flag.StringVar(&c.fixtures, "fixtures", "", "keep the thread fixtures in this directory and reuse them on later runs")
	flag.BoolVar(&c.busy, "busy", false, "run start,step,scalestep,inproc,list,read,scale100k twice: idle, then beside one spinning process per core")
	flag.BoolVar(&c.spin, "spin", false, "internal: spin until standard input closes (one process of the -busy load)")
	flag.Parse()
	if c.spin {
		spin()
	}
	if c.runs < 5 {
		c.runs = 5
	}
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// row is one line of the table.
type row struct {
	figure, baseline string
	value, base      float64 // medians, in unit
	unit             string
	goal             string
	note             string
}

func (r row) ratio() string {
	if r.base <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", r.value/r.base)
}

type bench struct {
	cfg  config
	root string
	bin  string // git-uwf
	// serveBin is git-uwf-serve, the viewer git uwf serve runs, built
	// next to bin.
	serveBin string
	// rsswrap runs a process for rssProc (bench/rsswrap).
	rsswrap string
	// fixtures holds the thread fixtures: cfg.fixtures, or root.
	fixtures string
	rows     []row
	// floors are the start-up floor programs, built on first use.
	floors *startFloors
	// pairs and loads are the -busy figures and the load each busy pass saw.
	pairs []pair
	loads []string
}

func run(ctx context.Context, c config) error {
	root, err := os.MkdirTemp("", "uwf-bench-")
	if err != nil {
		return err
	}
	if c.keep {
		fmt.Fprintln(os.Stderr, "fixtures in", root)
	} else {
		defer os.RemoveAll(root)
	}
	b := &bench{cfg: c, root: root, bin: filepath.Join(root, "git-uwf"), serveBin: filepath.Join(root, "git-uwf-serve"),
		rsswrap: filepath.Join(root, "rsswrap"), fixtures: root}
	if c.fixtures != "" {
		if b.fixtures, err = filepath.Abs(c.fixtures); err != nil {
			return err
		}
		if err := os.MkdirAll(b.fixtures, 0o755); err != nil {
			return err
		}
	}
	want := func(name string, optIn bool) bool {
		if c.only == "" {
			return !optIn
		}
		return strings.Contains(","+c.only+",", ","+name+",")
	}
	// busy marks the figures -busy runs twice; optIn, those that run only
	// when -only names them.
	type figure struct {
		name        string
		fn          func(*bench, context.Context) error
		busy, optIn bool
	}
	figures := []figure{
		{"start", (*bench).startFigure, true, false},
		{"step", (*bench).stepFigures, true, false},
		{"scalestep", (*bench).scaleStepFigures, true, false},
		{"inproc", (*bench).inProcessFigure, true, false},
		{"list", (*bench).listFigures, true, false},
		{"read", (*bench).readFigures, true, false},
		{"alias", (*bench).aliasFigure, false, false},
		{"sync", (*bench).syncFigure, false, false},
		{"transfer", (*bench).transferFigures, false, false},
		{"review", (*bench).reviewFigure, false, false},
		{"fleet", (*bench).fleetFigure, false, false},
		{"workers", (*bench).workerFigures, false, false},
		{"serve", (*bench).serveFigure, false, false},
		{"scale100k", (*bench).scale100kFigures, true, true},
	}
	for _, name := range strings.Split(c.only, ",") {
		if name != "" && !slices.ContainsFunc(figures, func(f figure) bool { return f.name == name }) {
			return fmt.Errorf("-only: no figure %q", name)
		}
	}
	logf("building git-uwf, git-uwf-serve, git-uwf-agent-supervisor and git-uwf-llm")
	// The tags and cgo setting `make build` uses (Makefile GOTAGS, CGO):
	// without the tags urfave/cli links its man-page export into the
	// binary; with cgo it is dynamically linked. Start-up pays for both.
	// The four side by side, as make install puts them: git uwf serve
	// runs git-uwf-serve from there, a spawned agent's supervisor is
	// git-uwf-agent-supervisor from there, and the llm agent's requests go
	// through git-uwf-llm from there.
	// They are linked into a directory of their own and then copied into
	// place, as make install copies them: a program the linker has just
	// written (through a shared mapping) starts ~1.2 ms slower on the
	// bench machine than a copy of it, for as long as its pages stay cached
	// (docs/performance.md, "Eighth round").
	linked := filepath.Join(root, "linked")
	build := exec.Command("go", "build", "-trimpath", "-tags", "urfave_cli_no_docs", "-o", linked+string(filepath.Separator),
		"./cmd/git-uwf", "./cmd/git-uwf-serve", "./cmd/git-uwf-agent-supervisor", "./cmd/git-uwf-llm")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build git-uwf, git-uwf-serve, git-uwf-agent-supervisor and git-uwf-llm: %w", err)
	}
	for _, name := range []string{"git-uwf", "git-uwf-serve", "git-uwf-agent-supervisor", "git-uwf-llm"} {
		if err := installProgram(filepath.Join(linked, name), filepath.Join(root, name)); err != nil {
			return err
		}
	}
	wrap := exec.Command("go", "build", "-o", b.rsswrap, "./bench/rsswrap")
	wrap.Stdout, wrap.Stderr = os.Stderr, os.Stderr
	if err := wrap.Run(); err != nil {
		return fmt.Errorf("build rsswrap: %w", err)
	}
	for _, f := range figures {
		if !want(f.name, f.optIn) {
			continue
		}
		start := time.Now()
		if c.busy && f.busy {
			err = b.twoPasses(ctx, f.name, f.fn)
		} else {
			err = f.fn(b, ctx)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		logf("%s took %.0f s", f.name, time.Since(start).Seconds())
	}
	b.print()
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "· "+format+"\n", args...)
}

// sample is one measured process or call.
type sample struct {
	d      time.Duration
	maxRSS int64         // KiB, for processes
	cpu    time.Duration // user + sys, for processes
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// proc runs a command and returns its wall time and peak RSS.
func proc(dir string, env []string, name string, args ...string) (sample, error) {
	return runProc(dir, env, nil, name, args...)
}

// procIn is proc with stdin as the command's standard input.
func procIn(dir string, stdin io.Reader, name string, args ...string) (sample, error) {
	return runProc(dir, nil, stdin, name, args...)
}

// runProc is proc with a standard input (none when stdin is nil).
func runProc(dir string, env []string, stdin io.Reader, name string, args ...string) (sample, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = stdin
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, errb.String())
	}
	var rss int64
	var cpu time.Duration
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss)
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return sample{d: d, maxRSS: rss, cpu: cpu}, nil
}

// num formats a figure with three significant digits, without an
// exponent: 0.0482, 24.8, 2220.
func num(v float64) string {
	if v >= 999.5 { // 999.5 would round to 1e+03
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// rssProc is proc for figures that report peak RSS: the command runs
// under rsswrap, a small process, so that its ru_maxrss is its own and not
// the bench's (see bench/rsswrap). Wall and CPU time come from rsswrap too.
func (b *bench) rssProc(dir string, name string, args ...string) (sample, error) {
	cmd := exec.Command(b.rsswrap, append([]string{name}, args...)...)
	cmd.Dir = dir
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return sample{}, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, errb.String())
	}
	var wall, cpu, rss int64
	if _, err := fmt.Sscan(string(out), &wall, &cpu, &rss); err != nil {
		return sample{}, fmt.Errorf("rsswrap %s: output %q: %w", name, out, err)
	}
	return sample{d: time.Duration(wall), cpu: time.Duration(cpu), maxRSS: rss}, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// measure runs fn and base alternately cfg.runs times after one warm-up
// each and returns the medians in milliseconds and the samples.
func (b *bench) measure(fn, base func(i int) (sample, error)) (float64, float64, []sample, error) {
	v, bv, samples, _, err := b.measureBoth(fn, base)
	return v, bv, samples, err
}

// measureBoth is measure, also returning the baseline's samples.
func (b *bench) measureBoth(fn, base func(i int) (sample, error)) (float64, float64, []sample, []sample, error) {
	var xs, ys []float64
	var samples, baseSamples []sample
	for i := -1; i < b.cfg.runs; i++ {
		s, err := fn(i)
		if err != nil {
			return 0, 0, nil, nil, err
		}
		var t sample
		if base != nil {
			if t, err = base(i); err != nil {
				return 0, 0, nil, nil, err
			}
		}
		if i < 0 {
			continue // warm-up
		}
		xs, ys = append(xs, ms(s.d)), append(ys, ms(t.d))
		samples, baseSamples = append(samples, s), append(baseSamples, t)
	}
	return median(xs), median(ys), samples, baseSamples, nil
}

func (b *bench) add(r row) {
	b.rows = append(b.rows, r)
	logf("%s: %s %s vs %s %s (%s)", r.figure, num(r.value), r.unit, num(r.base), r.unit, r.ratio())
}

func (b *bench) print() {
	nproc := runtime.NumCPU()
	mem := "?"
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(strings.SplitN(string(data), "\n", 2)[0], "MemTotal: %d kB", &kb)
		mem = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
	}
	gitVersion, _ := git(".", nil, "version")
	fmt.Printf("machine: nproc %d, memory %s, %s, %s %s/%s; median of %d runs (after 1 warm-up)\n\n",
		nproc, mem, gitVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH, b.cfg.runs)
	if len(b.pairs) > 0 {
		b.printPairs()
		if len(b.rows) == 0 {
			return
		}
		fmt.Println()
	}
	fmt.Println("| figure | git-uwf | baseline | ratio | goal |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range b.rows {
		v := fmt.Sprintf("%s %s", num(r.value), r.unit)
		base := "—"
		if r.baseline != "" {
			base = fmt.Sprintf("%s: %s %s", r.baseline, num(r.base), r.unit)
		}
		ratio := r.ratio()
		if r.note != "" {
			ratio += " " + r.note
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.figure, v, base, ratio, r.goal)
	}
}

// installProgram copies the program src to dst, a new file, the way
// install(1) does.
func installProgram(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("install %s: %w", dst, err)
	}
	return out.Close()
}
