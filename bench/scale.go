package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/chain"
)

// bigFixture builds (once) the repository with cfg.threads threads: a third
// at their start, a third with one step, a third completed.
func (b *bench) bigFixture(ctx context.Context) (*fixture, error) {
	f, _, err := b.threadsFixture(ctx, b.cfg.threads, true)
	return f, err
}

// fixtureMark is the file, in a thread fixture's .git, that says the
// fixture was built to the end; it holds how long that took. Its name
// changes with what the fixture holds, so that a kept fixture of an older
// layout is built again (2: step commits carry chain.StartTrailer; 3:
// and chain.NextTrailer).
const fixtureMark = "uwf-bench-fixture-3"

// threadsFixture builds (once) a repository with n threads in the mix of
// bigFixture, under b.fixtures, and returns it with the time its
// generation took (the import and, with packed, `git pack-refs --all`).
// packed says whether its refs are packed (git gc, a clone) or left loose
// (as steps and fetches write them). A fixture built to the end by an
// earlier run (-fixtures) is reused; one left half-built is built again.
func (b *bench) threadsFixture(ctx context.Context, n int, packed bool) (*fixture, time.Duration, error) {
	name := fmt.Sprintf("threads-%d", n)
	if !packed {
		name += "-loose"
	}
	dir := filepath.Join(b.fixtures, name)
	mark := filepath.Join(dir, ".git", fixtureMark)
	if data, err := os.ReadFile(mark); err == nil {
		took, err := time.ParseDuration(strings.TrimSpace(string(data)))
		if err != nil {
			return nil, 0, fmt.Errorf("fixture %s: %s: %w", name, mark, err)
		}
		f, err := newFixtureOpen(ctx, dir)
		return f, took, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, 0, fmt.Errorf("fixture %s: remove the half-built one: %w", name, err)
	}
	logf("fixture: %d threads in %s", n, dir)
	start := time.Now()
	f, err := newFixture(ctx, dir)
	if err != nil {
		return nil, 0, fmt.Errorf("fixture %s: %w", name, err)
	}
	im, err := f.importer()
	if err != nil {
		return nil, 0, fmt.Errorf("fixture %s: %w", name, err)
	}
	im.mix(n)
	if err := im.close(); err != nil {
		return nil, 0, fmt.Errorf("fixture %s: fast-import: %w", name, err)
	}
	if packed {
		if _, err := git(dir, nil, "pack-refs", "--all"); err != nil {
			return nil, 0, fmt.Errorf("fixture %s: %w", name, err)
		}
	}
	took := time.Since(start)
	if err := os.WriteFile(mark, []byte(took.String()+"\n"), 0o644); err != nil {
		return nil, 0, fmt.Errorf("fixture %s: %w", name, err)
	}
	logf("fixture %s built in %.1f s", name, took.Seconds())
	return f, took, nil
}

// scaleStepFigures measures a step in a repository of cfg.threads threads,
// once with packed refs and once with loose ones: the step reads one
// thread, so it must cost what it costs with one thread.
func (b *bench) scaleStepFigures(ctx context.Context) error {
	for _, packed := range []bool{true, false} {
		label := fmt.Sprintf("%d threads, packed refs", b.cfg.threads)
		if !packed {
			label = fmt.Sprintf("%d threads, loose refs", b.cfg.threads)
		}
		f, _, err := b.threadsFixture(ctx, b.cfg.threads, packed)
		if err != nil {
			return err
		}
		if err := b.stepRow(ctx, f, label); err != nil {
			return err
		}
	}
	return nil
}

func newFixtureOpen(ctx context.Context, dir string) (*fixture, error) {
	repo, err := chain.Open(ctx, dir, chain.Options{})
	if err != nil {
		return nil, err
	}
	wf, err := repo.FindWorkflow(ctx, "loop")
	if err != nil {
		return nil, err
	}
	return &fixture{dir: dir, repo: repo, wf: wf, script: filepath.Join(dir, ".uwf", "loop.mock.yaml")}, nil
}

func (b *bench) listFigures(ctx context.Context) error {
	f, err := b.bigFixture(ctx)
	if err != nil {
		return err
	}
	n := b.cfg.threads
	first, err := b.rssProc(f.dir, b.bin, "thread", "list", "--all")
	if err != nil {
		return err
	}
	logf("first list after the import (alias index and caches built): %.0f ms, %d MiB", ms(first.d), first.maxRSS>>10)
	// Both through rsswrap: the peak RSS row must be the listing's own.
	list := func(int) (sample, error) { return b.rssProc(f.dir, b.bin, "thread", "list", "--all") }
	forEach := func(int) (sample, error) { return b.rssProc(f.dir, "git", "for-each-ref", "refs/uwf/threads") }
	v, bv, warm, err := b.measure(list, forEach)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`thread list --all`, %d threads, warm", n), baseline: "`git for-each-ref refs/uwf/threads`",
		value: v, base: bv, unit: "ms", goal: "≤ 2×"})
	// listWithout lists after removing dir, so the listing rebuilds it.
	listWithout := func(dir string) func(int) (sample, error) {
		return func(int) (sample, error) {
			if err := os.RemoveAll(dir); err != nil {
				return sample{}, err
			}
			return list(0)
		}
	}
	cold := listWithout(filepath.Join(f.dir, ".git", "uwf", "cache"))
	v, bv, coldS, err := b.measure(cold, forEach)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`thread list --all`, %d threads, cold (summary cache deleted)", n), baseline: "`git for-each-ref refs/uwf/threads`",
		value: v, base: bv, unit: "ms", goal: "≤ 5×"})
	if err := b.objectFloorRows(ctx, f, n, cold); err != nil {
		return err
	}
	v, bv, allS, err := b.measure(listWithout(filepath.Join(f.dir, ".git", "uwf")), forEach)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`thread list --all`, %d threads, all of `.git/uwf/` deleted (alias index too)", n), baseline: "`git for-each-ref refs/uwf/threads`",
		value: v, base: bv, unit: "ms", goal: "(info)"})
	var peak int64
	for _, s := range append(append(warm, coldS...), allS...) {
		peak = max(peak, s.maxRSS)
	}
	b.add(row{figure: fmt.Sprintf("peak RSS of `thread list --all`, %d threads (warm, cold, all deleted)", n),
		value: float64(peak) / 1024, unit: "MiB", goal: "≤ 40 MiB"})
	return b.stepRow(ctx, f, fmt.Sprintf("%d threads", n))
}

// scale100kFigures lists and steps at cfg.scale threads (100,000 by
// default), packed refs, against git at the same scale, and compares the
// cost per thread with cfg.threads (10,000): the cold listing must stay at
// most 5× `git for-each-ref` with a flat cost per thread and a peak RSS
// no larger than for-each-ref's, and a step must cost no more than the
// plumbing that writes the same objects.
func (b *bench) scale100kFigures(ctx context.Context) error {
	small, _, err := b.threadsFixture(ctx, b.cfg.threads, true)
	if err != nil {
		return err
	}
	large, took, err := b.threadsFixture(ctx, b.cfg.scale, true)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("generating the %d-thread fixture (fast-import + `pack-refs --all`; reused with -fixtures)", b.cfg.scale),
		value: took.Seconds(), unit: "s", goal: "(info)"})
	var cold [2]listCost
	for i, f := range []struct {
		fx *fixture
		n  int
	}{{small, b.cfg.threads}, {large, b.cfg.scale}} {
		if cold[i], err = b.listAtScale(ctx, f.fx, f.n); err != nil {
			return err
		}
	}
	// Per thread in CPU time (user + sys, with the git children): wall
	// time of two listings minutes apart says more about the load between
	// them than about the code.
	per := func(n int, v float64) float64 { return v * 1000 / float64(n) }
	b.add(row{figure: fmt.Sprintf("cold `thread list --all`, CPU per thread at %d threads", b.cfg.scale),
		baseline: fmt.Sprintf("the same at %d threads", b.cfg.threads),
		value:    per(b.cfg.scale, cold[1].uwfCPU), base: per(b.cfg.threads, cold[0].uwfCPU), unit: "µs", goal: "flat (≈ 1×)"})
	b.add(row{figure: fmt.Sprintf("`git for-each-ref refs/uwf/threads`, CPU per thread at %d threads", b.cfg.scale),
		baseline: fmt.Sprintf("the same at %d threads", b.cfg.threads),
		value:    per(b.cfg.scale, cold[1].gitCPU), base: per(b.cfg.threads, cold[0].gitCPU), unit: "µs", goal: "(info)"})
	b.add(row{figure: fmt.Sprintf("cold `thread list --all` over `for-each-ref` (wall) at %d threads", b.cfg.scale),
		baseline: fmt.Sprintf("the same at %d threads", b.cfg.threads),
		value:    cold[1].uwf / cold[1].git, base: cold[0].uwf / cold[0].git, unit: "×", goal: "flat (≈ 1×)"})
	return b.stepRow(ctx, large, fmt.Sprintf("%d threads, packed refs", b.cfg.scale))
}

// listCost is the median wall and CPU time of a cold listing and of its
// baseline, in milliseconds.
type listCost struct{ uwf, git, uwfCPU, gitCPU float64 }

// listAtScale measures `thread list --all` in f (n threads) against
// `git for-each-ref`, warm and cold (summary cache deleted), and the peak
// RSS of both in the cold runs: the maximum of each run's ru_maxrss, which
// covers the process and the git processes it waited for (taken through
// rsswrap, so it is not the bench's own).
func (b *bench) listAtScale(ctx context.Context, f *fixture, n int) (listCost, error) {
	first, err := b.rssProc(f.dir, b.bin, "thread", "list", "--all")
	if err != nil {
		return listCost{}, err
	}
	logf("first list of %d threads (alias index and caches built): %.0f ms, %d MiB", n, ms(first.d), first.maxRSS>>10)
	list := func(int) (sample, error) { return b.rssProc(f.dir, b.bin, "thread", "list", "--all") }
	forEach := func(int) (sample, error) { return b.rssProc(f.dir, "git", "for-each-ref", "refs/uwf/threads") }
	const floor = "`git for-each-ref refs/uwf/threads`"
	v, bv, _, err := b.measure(list, forEach)
	if err != nil {
		return listCost{}, err
	}
	b.add(row{figure: fmt.Sprintf("`thread list --all`, %d threads, packed refs, warm", n), baseline: floor,
		value: v, base: bv, unit: "ms", goal: "≤ 2×"})
	cacheDir := filepath.Join(f.dir, ".git", "uwf", "cache")
	cold := func(int) (sample, error) {
		if err := os.RemoveAll(cacheDir); err != nil {
			return sample{}, err
		}
		return list(0)
	}
	v, bv, uwfS, gitS, err := b.measureBoth(cold, forEach)
	if err != nil {
		return listCost{}, err
	}
	b.add(row{figure: fmt.Sprintf("`thread list --all`, %d threads, packed refs, cold (summary cache deleted)", n), baseline: floor,
		value: v, base: bv, unit: "ms", goal: "≤ 5×"})
	if err := b.objectFloorRows(ctx, f, n, cold); err != nil {
		return listCost{}, err
	}
	peak := func(xs []sample) float64 {
		var m int64
		for _, s := range xs {
			m = max(m, s.maxRSS)
		}
		return float64(m) / 1024
	}
	// The goal against for-each-ref is the large scale's; at the small
	// one the goal is absolute (≤ 40 MiB, the list figures' row).
	rssGoal := "(info)"
	if n == b.cfg.scale {
		rssGoal = "≤ 1.0×"
	}
	b.add(row{figure: fmt.Sprintf("peak RSS of the cold `thread list --all`, %d threads (with its git processes)", n), baseline: floor,
		value: peak(uwfS), base: peak(gitS), unit: "MiB", goal: rssGoal})
	cpu := func(xs []sample) float64 {
		var c []float64
		for _, s := range xs {
			c = append(c, ms(s.cpu))
		}
		return median(c)
	}
	return listCost{uwf: v, git: bv, uwfCPU: cpu(uwfS), gitCPU: cpu(gitS)}, nil
}
