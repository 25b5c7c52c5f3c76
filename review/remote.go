package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// checkRemote verifies that a reviewer who fetches from remote can follow
// every step of the range: some thread ref on the remote holds the step.
func (b *builder) checkRemote(ctx context.Context, remote string, lines []*line, held map[gitobj.Hash][]string) ([]Problem, error) {
	remoteHeads, err := b.listRemote(ctx, remote)
	if err != nil {
		return nil, err
	}
	var probs []Problem
	for _, ln := range lines {
		for _, e := range ln.entries {
			codes := held[e.Commit]
			if len(codes) == 0 {
				continue
			}
			msg, err := b.onRemote(ctx, remote, ln, e, remoteHeads)
			if err != nil {
				return nil, err
			}
			if msg != "" {
				probs = append(probs, Problem{Commit: codes[0], Thread: string(ln.id), Message: msg})
			}
		}
	}
	return probs, nil
}

// listRemote lists the threads of remote (git ls-remote, once per Build).
func (b *builder) listRemote(ctx context.Context, remote string) (map[chain.ThreadID]gitobj.Hash, error) {
	if b.remoteHeads != nil {
		return b.remoteHeads, nil
	}
	if err := uwfsync.CheckRemote(ctx, b.repo, remote); err != nil {
		return nil, err
	}
	out, err := b.repo.Git.Run(ctx, nil, "ls-remote", "--refs", remote, chain.ThreadsPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("list the threads of remote %s: %w", remote, err)
	}
	heads := map[chain.ThreadID]gitobj.Hash{}
	for l := range strings.SplitSeq(string(out), "\n") {
		oid, name, ok := strings.Cut(strings.TrimSpace(l), "\t")
		if !ok || !strings.HasPrefix(name, chain.ThreadsPrefix) {
			continue
		}
		if id, err := chain.ParseThreadID(strings.TrimPrefix(name, chain.ThreadsPrefix)); err == nil {
			heads[id] = gitobj.NewHash(oid)
		}
	}
	b.remoteHeads = heads
	return heads, nil
}

// onRemote returns "" when a thread on the remote holds step e of ln, and
// otherwise what is wrong and what to run.
func (b *builder) onRemote(ctx context.Context, remote string, ln *line, e *chain.Entry, heads map[chain.ThreadID]gitobj.Hash) (string, error) {
	step := ln.index[e.Commit]
	unfetched := ""
	for _, fl := range ln.family.lines {
		head, ok := heads[fl.id]
		if !ok {
			continue
		}
		if _, local := fl.index[head]; local || head == fl.thread.Head.Commit {
			if _, has := fl.index[e.Commit]; has && fl.index[head] >= fl.index[e.Commit] {
				return "", nil
			}
			continue
		}
		has, err := b.repo.IsAncestor(ctx, e.Commit, head)
		if err == nil && has {
			return "", nil
		}
		if err != nil && !b.hasCommit(ctx, head) {
			unfetched = string(fl.id)
		}
	}
	if unfetched != "" {
		return fmt.Sprintf("remote %s has thread %s at a commit this repository has not fetched, so step %d of thread %s cannot be checked: run git uwf fetch %s", remote, unfetched, step, ln.id, remote), nil
	}
	if _, ok := heads[ln.id]; !ok {
		return fmt.Sprintf("step %d (%s) of thread %s is not on remote %s: the thread is not there, run git uwf push %s", step, shortAlias(string(e.Node.Alias)), ln.id, remote, remote), nil
	}
	return fmt.Sprintf("step %d (%s) of thread %s is not on remote %s: the remote's thread does not hold it yet, run git uwf push %s", step, shortAlias(string(e.Node.Alias)), ln.id, remote, remote), nil
}

func (b *builder) hasCommit(ctx context.Context, h gitobj.Hash) bool {
	_, err := b.repo.Git.Output(ctx, "cat-file", "-e", h.String()+"^{commit}")
	return err == nil
}
