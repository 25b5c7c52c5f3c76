package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// startRuns is how many pairs the start-up figure takes: the processes are
// short, so more pairs cost little and steady the median.
const startRuns = 31

// modulePath is git-uwf's module: its own packages are below it.
const modulePath = "github.com/git-uwf/git-uwf"

// startFigure measures process start: `git-uwf version` against
// `git --version`, alternately, in wall time and in CPU time (user +
// system, from the kernel's accounting, which moves less than wall time on
// a busy machine). The same rounds start the two floor programs
// (buildStartFloors), so that the table shows what the Go runtime alone
// and git-uwf's dependencies alone cost on the machine, beside git-uwf.
func (b *bench) startFigure(context.Context) error {
	if b.floors == nil { // once for both passes of -busy
		floors, err := b.buildStartFloors()
		if err != nil {
			return err
		}
		b.floors = &floors
	}
	floors := *b.floors
	argvs := [][]string{{b.bin, "version"}, {"git", "--version"}, {floors.empty}, {floors.deps}}
	wall := make([][]float64, len(argvs))
	cpu := make([][]float64, len(argvs))
	for i := -1; i < startRuns; i++ {
		for k, argv := range argvs {
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
	b.add(row{figure: "info: process start, an empty Go program (the Go runtime alone)", baseline: "`git --version`",
		value: median(wall[2]), base: median(wall[1]), unit: "ms", goal: "(info)"})
	b.add(row{figure: fmt.Sprintf("info: process start, git-uwf's dependencies alone (%d importable packages of those it links but its own, which bring the rest; initialised, nothing run)", floors.packages),
		baseline: "`git --version`", value: median(wall[3]), base: median(wall[1]), unit: "ms", goal: "(info)"})
	return b.initFigures()
}

// startFloors are the programs buildStartFloors built.
type startFloors struct {
	empty, deps string
	packages    int // imported by deps
}

// buildStartFloors builds, next to git-uwf and the way it is built, the two
// programs that show where process start goes on the machine: one whose
// main only prints a line (the Go runtime's own start), and one that
// imports, for their initialisation only, every package git-uwf links but
// its own, and then prints a line (what the dependencies cost before
// git-uwf's own code runs). The second is a lower bound: the linker leaves
// out package-level maps nothing in it uses, and with them their
// initialisation, which git-uwf pays for. Their sources are written into
// the bench's directory and built through an overlay (go build -overlay),
// as packages of this module that exist on no disk, so that the
// dependencies resolve to go.mod's versions and nothing is written into the
// source tree.
func (b *bench) buildStartFloors() (startFloors, error) {
	const tags = "urfave_cli_no_docs" // as for git-uwf (see run)
	list := exec.Command("go", "list", "-deps", "-tags", tags, "./cmd/git-uwf")
	list.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := list.Output()
	if err != nil {
		return startFloors{}, fmt.Errorf("go list -deps ./cmd/git-uwf: %w", err)
	}
	var deps strings.Builder
	deps.WriteString("package main\n\nimport (\n\t\"os\"\n")
	n := 0
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, modulePath+"/") || !importable(pkg) || pkg == "os" {
			continue
		}
		fmt.Fprintf(&deps, "\t_ %q\n", pkg)
		n++
	}
	deps.WriteString(")\n\nfunc main() { os.Stdout.WriteString(\"deps\\n\") }\n")
	const empty = "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"empty\\n\") }\n"

	wd, err := os.Getwd()
	if err != nil {
		return startFloors{}, err
	}
	dir := filepath.Join(b.root, "startfloor")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return startFloors{}, err
	}
	replace := map[string]string{}
	pkgs := []string{"./bench/startfloor/goempty", "./bench/startfloor/uwfdeps"}
	for i, src := range []string{empty, deps.String()} {
		file := filepath.Join(dir, filepath.Base(pkgs[i])+".go")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			return startFloors{}, err
		}
		replace[filepath.Join(wd, pkgs[i], "main.go")] = file
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return startFloors{}, err
	}
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return startFloors{}, err
	}
	linked := filepath.Join(dir, "linked")
	args := append([]string{"build", "-overlay", overlayFile, "-trimpath", "-tags", tags, "-o", linked + string(filepath.Separator)}, pkgs...)
	build := exec.Command("go", args...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return startFloors{}, fmt.Errorf("build the start-up floor programs: %w: %s", err, out)
	}
	f := startFloors{empty: filepath.Join(b.root, "goempty"), deps: filepath.Join(b.root, "uwfdeps"), packages: n}
	// Copied into place, as git-uwf is (see run).
	for _, prog := range []string{f.empty, f.deps} {
		if err := installProgram(filepath.Join(linked, filepath.Base(prog)), prog); err != nil {
			return startFloors{}, err
		}
	}
	return f, nil
}

// importable reports whether a program may import pkg: Go refuses internal
// packages of other modules and of the standard library, and vendor/
// packages are the standard library's own copies.
func importable(pkg string) bool {
	if strings.HasPrefix(pkg, "vendor/") {
		return false
	}
	return !slices.Contains(strings.Split(pkg, "/"), "internal")
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
		if own.pkg == "" && strings.HasPrefix(p.pkg, modulePath+"/") {
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
		note: fmt.Sprintf("(%s)", strings.TrimPrefix(own.pkg, modulePath+"/"))})
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
