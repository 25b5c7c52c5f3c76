package uwfsync

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// Exported is what ExportBundle wrote: the refs in the bundle and their
// values.
type Exported struct {
	File string            `json:"file"`
	Refs map[string]string `json:"refs"`
}

// ExportBundle writes a git bundle to file (an absolute path) holding the
// threads' refs, their attempts logs and the registry refs of their
// workflows (when registered), with every commit those reach: a bundle
// that `git uwf thread import` (or plain git) can read in a repository
// that has none of it. extra names more refs to carry (e.g. child
// threads); they must be refs/uwf/ refs that exist.
func ExportBundle(ctx context.Context, repo *chain.Repo, file string, threads []*chain.Thread, extra ...string) (*Exported, error) {
	var names []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	for _, t := range threads {
		add(chain.ThreadsPrefix + string(t.ID))
		add(chain.AttemptsPrefix + string(t.ID))
		add(chain.WorkflowsPrefix + t.Workflow.Name)
	}
	for _, name := range extra {
		add(name)
	}
	values, err := readRefs(ctx, repo, names)
	if err != nil {
		return nil, err
	}
	out := &Exported{File: file, Refs: map[string]string{}}
	args := []string{"bundle", "create", "--quiet", file}
	for _, name := range names {
		if oid, ok := values[name]; ok {
			out.Refs[name] = oid
			args = append(args, name)
		}
	}
	for _, t := range threads {
		if _, ok := out.Refs[chain.ThreadsPrefix+string(t.ID)]; !ok {
			return nil, fmt.Errorf("thread %s: %w", t.ID, chain.ErrUnknownThread)
		}
	}
	if _, err := repo.Git.Run(ctx, nil, args...); err != nil {
		return nil, fmt.Errorf("write bundle %s: %w", file, err)
	}
	return out, nil
}

// ImportBundle reads a bundle written by ExportBundle (or by git bundle
// create): it checks it with git bundle verify, refuses it when it carries
// a ref outside refs/uwf/, fetches it into a private staging namespace and
// reconciles exactly like a fetch from a remote (new threads appear,
// fast-forwards move, a diverged thread keeps the bundle's line under its
// name and yours as a fork). The staging refs are deleted afterwards.
// label names the bundle in the report. A bundle that is not one, is
// truncated or carries foreign refs writes nothing.
func ImportBundle(ctx context.Context, repo *chain.Repo, file, label string) (*Report, error) {
	if _, err := repo.Git.Run(ctx, nil, "bundle", "verify", "--quiet", file); err != nil {
		return nil, fmt.Errorf("%s is not a usable git bundle: %s", label, gitReason(err))
	}
	heads, err := repo.Git.Run(ctx, nil, "bundle", "list-heads", file)
	if err != nil {
		return nil, fmt.Errorf("%s: list its refs: %s", label, gitReason(err))
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(heads)), "\n") {
		if line == "" {
			continue
		}
		_, name, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(name, chain.RefPrefix) {
			return nil, fmt.Errorf("%s carries %s, which is outside refs/uwf/: refusing it, nothing was imported", label, strings.TrimSpace(line))
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s carries no git-uwf refs (is it truncated?); nothing was imported", label)
	}
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return nil, err
	}
	stage := "uwf-import-" + hex.EncodeToString(suffix[:])
	defer dropStaging(context.WithoutCancel(ctx), repo, stage)
	args := append(fetchArgs(), "--quiet", file, "+"+chain.RefPrefix+"*:"+trackingPrefix(stage)+"*")
	if _, err := trackingGit(repo).Run(ctx, nil, args...); err != nil {
		return nil, fmt.Errorf("%s is truncated or damaged (git fetch: %s); nothing was imported", label, gitReason(err))
	}
	st, err := listState(ctx, repo, stage)
	if err != nil {
		return nil, err
	}
	return reconcileState(ctx, repo, label, modeSync, st)
}

// dropStaging deletes the staging refs of an import.
func dropStaging(ctx context.Context, repo *chain.Repo, stage string) {
	refs, err := repo.Git.ForEachRef(ctx, trackingPrefix(stage))
	if err != nil || len(refs) == 0 {
		return
	}
	updates := make([]gitrepo.RefUpdate, len(refs))
	for i, r := range refs {
		updates[i] = gitrepo.RefUpdate{Ref: r.Name, New: gitrepo.ZeroOID, Old: r.OID}
	}
	_ = repo.Git.UpdateRefs(ctx, "uwf: import staging done", updates...)
}

// gitReason is the first line of what git said on stderr.
func gitReason(err error) string {
	var ge *gitrepo.GitError
	if errors.As(err, &ge) {
		for _, line := range strings.Split(ge.Stderr, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				return strings.TrimPrefix(strings.TrimPrefix(line, "error: "), "fatal: ")
			}
		}
	}
	return err.Error()
}
