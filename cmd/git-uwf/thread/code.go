package thread

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// workTreeCode is the branch and commit checked out around dir (zero
// outside a work tree).
func workTreeCode(ctx context.Context, dir string) chain.Code {
	repo, err := gitrepo.Discover(ctx, dir, nil)
	if err != nil || repo.Bare {
		return chain.Code{}
	}
	h, err := gitrepo.HeadOf(ctx, repo)
	if err != nil {
		return chain.Code{}
	}
	return chain.Code{Branch: h.Branch, Commit: h.Commit}
}

// startedOn renders where a thread started: "main (at 1a2b3c4d5e6f)".
func startedOn(branch, commit string) string {
	if branch == "" {
		branch = "(detached HEAD)"
	}
	if len(commit) >= 12 {
		return fmt.Sprintf("%s (at %s)", branch, commit[:12])
	}
	return branch
}

// listHere lists the threads started on the branch checked out in the
// working directory.
func listHere(ctx context.Context, f *cmdutil.Factory, opts chain.ListOptions, format cmdutil.Format) error {
	wd, err := f.Getwd()
	if err != nil {
		return err
	}
	here := workTreeCode(ctx, wd)
	if here.Branch == "" {
		return errors.New("thread list --here: HEAD is not on a branch (detached or outside a work tree)")
	}
	return listFiltered(ctx, f, opts, format, func(repo *chain.Repo, s chain.Summary) bool {
		t, err := repo.CachedThread(ctx, s.Thread)
		if err != nil {
			return false
		}
		code, err := repo.StartCode(ctx, t)
		return err == nil && code.Branch == here.Branch
	})
}
