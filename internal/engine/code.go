package engine

import (
	"context"

	"github.com/git-uwf/git-uwf/internal/gitcli"
)

// codeHead returns the commit checked out in the work tree around dir ("",
// when dir is in no repository or on an unborn branch): the code a step
// runs on.
func codeHead(ctx context.Context, dir string) string {
	repo, err := gitcli.Discover(ctx, dir, nil)
	if err != nil || repo.Bare {
		return ""
	}
	h, err := gitcli.HeadOf(ctx, repo)
	if err != nil {
		return ""
	}
	return h.Commit
}
