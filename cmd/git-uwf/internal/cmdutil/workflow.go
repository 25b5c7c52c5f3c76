package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// looksLikePath reports whether arg names a file rather than a workflow.
func looksLikePath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml")
}

// ResolveWorkflow turns a `<workflow>` argument into a stored workflow
// version: an alias (or unambiguous prefix) → a file path → a file in
// .uwf/workflows/ from the working directory up to the repository top →
// the registry (refs/uwf/workflows/<name>). Files are materialized into the
// object database (not registered). Relative paths resolve against getwd.
func ResolveWorkflow(ctx context.Context, getwd func() (string, error), repo *chain.Repo, arg string) (*chain.WorkflowInfo, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return nil, FlagErrorf("a workflow name, alias or file is required")
	}
	if a, err := objects.ParseAlias(arg); err == nil {
		if info, err := repo.LoadWorkflow(ctx, a); err == nil {
			return info, nil
		}
	}
	wd, err := getwd()
	if err != nil {
		return nil, err
	}
	if looksLikePath(arg) {
		path, err := AbsPath(getwd, arg)
		if err != nil {
			return nil, err
		}
		w, err := moderator.LoadFile(path)
		if err != nil {
			return nil, err
		}
		return repo.MaterializeWorkflow(ctx, w)
	}
	if path, ok := moderator.FindFile(wd, repo.Info.WorkTree, arg); ok {
		w, err := moderator.LoadFile(path)
		if err != nil {
			return nil, err
		}
		return repo.MaterializeWorkflow(ctx, w)
	}
	info, err := repo.FindWorkflow(ctx, arg)
	if errors.Is(err, chain.ErrUnknownWorkflow) {
		if registered, lerr := repo.Workflows(ctx); lerr == nil {
			names := make([]string, len(registered))
			for i, w := range registered {
				names[i] = w.Name
			}
			if hint := DidYouMean(arg, names); hint != "" {
				return nil, fmt.Errorf("%w%s", err, hint)
			}
		}
	}
	return info, err
}
