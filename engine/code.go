package engine

import (
	"context"

	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// codeHead returns the commit checked out in the work tree around dir ("",
// when dir is in no repository or on an unborn branch): the code a step
// runs on. files is the process's reader of the engine repository's ref
// files, used when dir is in that repository.
func codeHead(ctx context.Context, dir string, files *gitrepo.RefFiles) string {
	repo, err := gitrepo.Discover(ctx, dir, nil)
	if err != nil || repo.Bare {
		return ""
	}
	h, err := gitrepo.HeadWith(ctx, repo, files)
	if err != nil {
		return ""
	}
	return h.Commit
}
