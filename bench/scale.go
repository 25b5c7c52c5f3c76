package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-uwf/git-uwf/chain"
)

// bigFixture builds (once) the repository with cfg.threads threads: a third
// at their start, a third with one step, a third completed.
func (b *bench) bigFixture(ctx context.Context) (*fixture, error) {
	return b.threadsFixture(ctx, "big", true)
}

// threadsFixture builds (once) in name a repository with cfg.threads
// threads, as bigFixture; packed says whether its refs are packed (git gc,
// a clone) or left loose (as steps and fetches write them).
func (b *bench) threadsFixture(ctx context.Context, name string, packed bool) (*fixture, error) {
	dir := filepath.Join(b.root, name)
	if _, err := os.Stat(dir); err == nil {
		f, err := newFixtureOpen(ctx, dir)
		return f, err
	}
	logf("fixture: %d threads in %s", b.cfg.threads, name)
	f, err := newFixture(ctx, dir)
	if err != nil {
		return nil, err
	}
	im, err := f.importer()
	if err != nil {
		return nil, err
	}
	im.mix(b.cfg.threads)
	if err := im.close(); err != nil {
		return nil, fmt.Errorf("fast-import: %w", err)
	}
	if !packed {
		return f, nil
	}
	if _, err := git(dir, nil, "pack-refs", "--all"); err != nil {
		return nil, err
	}
	return f, nil
}

// scaleStepFigures measures a step in a repository of cfg.threads threads,
// once with packed refs and once with loose ones: the step reads one
// thread, so it must cost what it costs with one thread.
func (b *bench) scaleStepFigures(ctx context.Context) error {
	for _, packed := range []bool{true, false} {
		name, label := "big", fmt.Sprintf("%d threads, packed refs", b.cfg.threads)
		if !packed {
			name, label = "big-loose", fmt.Sprintf("%d threads, loose refs", b.cfg.threads)
		}
		f, err := b.threadsFixture(ctx, name, packed)
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
	first, err := proc(f.dir, nil, b.bin, "thread", "list", "--all")
	if err != nil {
		return err
	}
	logf("first list after the import (alias index and caches built): %.0f ms, %d MiB", ms(first.d), first.maxRSS>>10)
	list := func(int) (sample, error) { return proc(f.dir, nil, b.bin, "thread", "list", "--all") }
	forEach := func(int) (sample, error) { return proc(f.dir, nil, "git", "for-each-ref", "refs/uwf/threads") }
	v, bv, warm, err := b.measure(list, forEach)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`thread list --all`, %d threads, warm", n), baseline: "`git for-each-ref refs/uwf/threads`",
		value: v, base: bv, unit: "ms", goal: "≤ 2×"})
	cacheDir := filepath.Join(f.dir, ".git", "uwf", "cache")
	cold := func(int) (sample, error) {
		if err := os.RemoveAll(cacheDir); err != nil {
			return sample{}, err
		}
		return list(0)
	}
	v, bv, coldS, err := b.measure(cold, forEach)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`thread list --all`, %d threads, cold (summary cache deleted)", n), baseline: "`git for-each-ref refs/uwf/threads`",
		value: v, base: bv, unit: "ms", goal: "≤ 5×"})
	uwfDir := filepath.Join(f.dir, ".git", "uwf")
	coldest := func(int) (sample, error) {
		if err := os.RemoveAll(uwfDir); err != nil {
			return sample{}, err
		}
		return list(0)
	}
	v, bv, allS, err := b.measure(coldest, forEach)
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
