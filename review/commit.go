package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-uwf/git-uwf/chain"
)

// ErrNotCodeCommit reports that a revision is not a code commit with an
// Uwf-Step trailer (it is a thread commit, names no commit, or carries no
// trailer): the caller resolves it some other way.
var ErrNotCodeCommit = errors.New("not a code commit with a step trailer")

// CodeCommitSteps resolves the Uwf-Step trailers of one code commit the
// way Build does (every trailer line, forks made by sync, failed attempts
// explained). It returns the links in trailer order and the entries of
// those that resolve (nil for the others).
func CodeCommitSteps(ctx context.Context, repo *chain.Repo, rev string) ([]StepLink, []*chain.Entry, error) {
	commit, err := repo.Git.Output(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil || len(commit) != 40 {
		return nil, nil, ErrNotCodeCommit
	}
	out, err := repo.Git.Run(ctx, nil, "log", "-1", "-z", "--format="+logFormat, commit, "--")
	if err != nil {
		return nil, nil, fmt.Errorf("read commit %s: %w", shortID(commit), err)
	}
	commits, err := parseLog(out)
	if err != nil {
		return nil, nil, err
	}
	if len(commits) != 1 || len(commits[0].Values) == 0 {
		return nil, nil, ErrNotCodeCommit
	}
	b := newBuilder(repo)
	if err := b.prefetch(ctx, commits); err != nil {
		return nil, nil, err
	}
	links := make([]StepLink, 0, len(commits[0].Values))
	entries := make([]*chain.Entry, 0, len(commits[0].Values))
	for _, v := range commits[0].Values {
		link, _, e := b.resolve(ctx, v, commits[0].Time)
		links, entries = append(links, link), append(entries, e)
	}
	return links, entries, nil
}
