package chain

import (
	"context"
	"fmt"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// ValidWorkflowName reports whether name can be a registered workflow name,
// i.e. the last component of refs/uwf/workflows/<name>.
func ValidWorkflowName(name string) error { return validWorkflowName(name) }

// WorkflowAt reads the workflow version registered by a registry commit (a
// commit of refs/uwf/workflows/<name>), e.g. one fetched from a remote that
// is not on any local ref yet.
func (r *Repo) WorkflowAt(ctx context.Context, commit gitobj.Hash) (*WorkflowInfo, error) {
	c, err := gitobj.GetCommit(r.Store.Storer(), commit)
	if err != nil {
		return nil, fmt.Errorf("read workflow commit %s: %w", commit, err)
	}
	info, err := r.loadWorkflowTree(ctx, c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("workflow commit %s: %w", commit, err)
	}
	return info, nil
}

// ListRefs lists the refs under patterns ("refs/uwf/threads/", …) as
// `git for-each-ref` does, sorted by name, reading the ref files in-process
// when the repository uses the files backend, through the process's one
// reader of them (RefFiles), and running git for-each-ref otherwise.
func (r *Repo) ListRefs(ctx context.Context, patterns ...string) ([]gitrepo.RefEntry, error) {
	if refs, ok, err := r.RefFiles().List(patterns...); ok && err == nil {
		return refs, nil
	}
	return r.Git.ForEachRef(ctx, patterns...)
}

// RefFiles is the reader of this repository's ref files that every ref
// read of the process shares (thread resolution, listings, the adopt
// check, the alias index), so packed-refs is parsed once per process
// while it does not change.
func (r *Repo) RefFiles() *gitrepo.RefFiles {
	if r.refs == nil || r.refs.files == nil {
		return gitrepo.NewRefFiles(r.Info.CommonDir)
	}
	return r.refs.files
}
