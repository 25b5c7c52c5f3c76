package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// repeatScript scripts the mock agent for many "again" steps, so every
// thread stays idle and can be stepped once per measured run.
func repeatScript(n int) string {
	var b strings.Builder
	b.WriteString("steps:\n")
	for i := 0; i < n; i++ {
		b.WriteString("  - role: worker\n    output: {$status: again, summary: \"nothing to do\"}\n    body: \"No-op.\"\n")
	}
	return b.String()
}

// doneScript ends a thread at its first step.
const doneScript = `steps:
  - role: worker
    output: {$status: done, summary: "nothing to do"}
    body: "No-op."
`

// fleetFigure measures `thread step --all -j 4` over cfg.fleet idle
// threads, per step, against single `thread step` processes on the same
// repository, interleaved.
func (b *bench) fleetFigure(ctx context.Context) error {
	logf("fixture: %d idle threads for step --all", b.cfg.fleet)
	f, err := newFixture(ctx, filepath.Join(b.root, "fleet"))
	if err != nil {
		return err
	}
	script := filepath.Join(f.dir, ".uwf", "repeat.mock.yaml")
	if err := os.WriteFile(script, []byte(repeatScript(4*(b.cfg.runs+2))), 0o644); err != nil {
		return err
	}
	ids, err := f.startThreads(ctx, b.cfg.fleet)
	if err != nil {
		return err
	}
	agent := "git-uwf agent mock --script " + script
	all := func(int) (sample, error) {
		s, err := proc(f.dir, nil, b.bin, "thread", "step", "--all", "-j", "4", "--agent", agent)
		s.d /= time.Duration(len(ids))
		return s, err
	}
	single := func(int) (sample, error) {
		return proc(f.dir, nil, b.bin, "thread", "step", string(ids[0]), "--agent", agent)
	}
	v, bv, _, err := b.measure(all, single)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`thread step --all -j 4` over %d idle threads, mock agent, per step", len(ids)),
		baseline: "one `thread step` process", value: v, base: bv, unit: "ms", goal: "≤ 1.5×"})
	return nil
}

// workerFigures measures the throughput of 1, 2 and 4 workers on this
// machine against one bare remote, and the bytes the remote receives per
// step (claim, step and release), which must not grow with the threads.
func (b *bench) workerFigures(ctx context.Context) error {
	for _, workers := range []int{1, 2, 4} {
		rate, bytesPerStep, err := b.workerRun(ctx, workers, b.cfg.workerThreads)
		if err != nil {
			return err
		}
		b.add(row{figure: fmt.Sprintf("`git uwf worker` throughput, %d worker(s), %d one-step threads, bare remote", workers, b.cfg.workerThreads),
			value: rate, unit: "steps/s", goal: "(info)"})
		if workers == 1 {
			_, small, err := b.workerRun(ctx, 1, b.cfg.workerThreads/4)
			if err != nil {
				return err
			}
			b.add(row{figure: fmt.Sprintf("bytes received by the remote per worker step (claim + step + release), %d threads", b.cfg.workerThreads),
				baseline: fmt.Sprintf("the same with %d threads", b.cfg.workerThreads/4), value: bytesPerStep, base: small, unit: "B", goal: "≈ 1.0× (∝ the step)"})
		}
	}
	return nil
}

// workerRun seeds a bare remote with n one-step threads, runs the workers
// in clones of it until idle, and returns steps per second and the pack
// bytes the remote received per step.
func (b *bench) workerRun(ctx context.Context, workers, n int) (float64, float64, error) {
	dir := filepath.Join(b.root, fmt.Sprintf("workers-%d-%d", workers, n))
	f, err := newFixture(ctx, filepath.Join(dir, "seed"))
	if err != nil {
		return 0, 0, err
	}
	script := filepath.Join(dir, "done.mock.yaml")
	if err := os.WriteFile(script, []byte(doneScript), 0o644); err != nil {
		return 0, 0, err
	}
	if _, err := f.startThreads(ctx, n); err != nil {
		return 0, 0, err
	}
	bare := filepath.Join(dir, "remote.git")
	if _, err := git(dir, nil, "init", "-q", "--bare", bare); err != nil {
		return 0, 0, err
	}
	if _, err := git(bare, nil, "config", "receive.unpackLimit", "1"); err != nil {
		return 0, 0, err
	}
	if _, err := git(f.dir, nil, "remote", "add", "origin", bare); err != nil {
		return 0, 0, err
	}
	if _, err := proc(f.dir, nil, b.bin, "push", "origin"); err != nil {
		return 0, 0, err
	}
	var clones []string
	for i := 0; i < workers; i++ {
		c := filepath.Join(dir, fmt.Sprintf("clone%d", i))
		if _, err := git(dir, nil, "clone", "-q", bare, c); err != nil {
			return 0, 0, err
		}
		clones = append(clones, c)
	}
	before := packBytes(bare)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i, c := range clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = proc(c, nil, b.bin, "worker", "origin", "-j", "1", "--until-idle", "--lease", "1m",
				"--agent", "git-uwf agent mock --script "+script)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return 0, 0, err
		}
	}
	return float64(n) / took.Seconds(), float64(packBytes(bare)-before) / float64(n), nil
}
