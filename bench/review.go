package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// Shape of the review fixture: a branch of reviewThreads×reviewSteps code
// commits, each with the Uwf-Step trailer of one step, plus one commit by
// hand for every reviewHandEvery.
const (
	reviewThreads   = 20
	reviewSteps     = 25
	reviewHandEvery = 10
)

// reviewFigure measures `git uwf review` of a branch of hundreds of code
// commits whose trailers point at steps of several threads, against the
// git log that lists the same commits with their messages.
func (b *bench) reviewFigure(ctx context.Context) error {
	logf("fixture: a branch of %d code commits over %d threads", reviewThreads*reviewSteps, reviewThreads)
	f, err := newFixture(ctx, filepath.Join(b.root, "review"))
	if err != nil {
		return err
	}
	im, err := f.importer()
	if err != nil {
		return err
	}
	ids := make([]chain.ThreadID, reviewThreads)
	for i := range ids {
		ids[i] = im.thread(i, reviewSteps, "again")
	}
	if err := im.close(); err != nil {
		return fmt.Errorf("fast-import threads: %w", err)
	}
	// heads[i][k] is the commit step k of thread i started on.
	heads := make([][]string, len(ids))
	for i, id := range ids {
		out, err := git(f.dir, nil, "rev-list", "--reverse", id.Ref())
		if err != nil {
			return err
		}
		heads[i] = strings.Fields(out)
	}
	if im, err = f.importer(); err != nil {
		return err
	}
	n := 0
	for k := 0; k < reviewSteps; k++ {
		for i := range ids {
			msg := fmt.Sprintf("code: change %d of thread %d\n\nUwf-Step: %s\n", k, i, chain.StepTrailerValue(ids[i], gitobj.NewHash(heads[i][k])))
			im.codeCommit(n, msg)
			n++
			if n%reviewHandEvery == 0 {
				im.codeCommit(n, fmt.Sprintf("docs: a change by hand (%d)\n", n))
				n++
			}
		}
	}
	if err := im.close(); err != nil {
		return fmt.Errorf("fast-import code commits: %w", err)
	}
	rng := "main..feature"
	if _, err := proc(f.dir, nil, b.bin, "review", rng); err != nil { // builds the entry caches
		return err
	}
	review := func(int) (sample, error) { return proc(f.dir, nil, b.bin, "review", rng) }
	gitLog := func(int) (sample, error) { return proc(f.dir, nil, "git", "log", "--format=%H%n%B", rng) }
	v, bv, _, err := b.measure(review, gitLog)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`review`, %d commits (%d with a step) over %d threads", n, reviewThreads*reviewSteps, reviewThreads),
		baseline: "`git log --format=%H%n%B` of the range", value: v, base: bv, unit: "ms", goal: "(info)"})
	return nil
}

// codeCommit emits commit n of refs/heads/feature, on main for the first.
func (im *importer) codeCommit(n int, msg string) {
	im.mark++
	im.when++
	ident := fmt.Sprintf("Bench <bench@example.invalid> %d +0000", im.when)
	fmt.Fprintf(im.w, "commit refs/heads/feature\nmark :%d\nauthor %s\ncommitter %s\ndata %d\n%s\n", im.mark, ident, ident, len(msg), msg)
	if n == 0 {
		fmt.Fprintf(im.w, "from refs/heads/main\n")
	}
	data := fmt.Sprintf("change %d\n", n)
	fmt.Fprintf(im.w, "M 100644 inline code.txt\ndata %d\n%s\n", len(data), data)
}
