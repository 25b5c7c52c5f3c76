package thread

import (
	"context"
	"fmt"

	"github.com/git-uwf/git-uwf/chain"
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
