package chain

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// EntryCacheLines counts the valid and the damaged record lines of an entry
// cache file, and reports whether its header is the current one.
func EntryCacheLines(path string) (valid, bad int, current bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false, err
	}
	if !bytes.HasPrefix(data, []byte(entryCacheHeader())) {
		return 0, 0, false, nil
	}
	for _, line := range bytes.SplitAfter(data[len(entryCacheHeader()):], []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		if _, ok := parseEntryRecord(bytes.TrimSuffix(line, []byte{'\n'})); ok && line[len(line)-1] == '\n' {
			valid++
		} else {
			bad++
		}
	}
	return valid, bad, true, nil
}

// SetWalkBatchAfter sets how many missing commits a chain walk of r reads
// one by one before it reads the rest through git; negative: none.
func SetWalkBatchAfter(r *Repo, n int) { r.entries.batchAfter = n }

// SetWalkBatchChunk sets how many commits a batch walk of r asks git for at
// a time (0: the default).
func SetWalkBatchChunk(r *Repo, n int) { r.entries.batchChunk = n }

// SetWalkBatchViaGit makes a batch walk of r read through git rev-list and
// cat-file even where it could read the objects itself.
func SetWalkBatchViaGit(r *Repo, viaGit bool) { r.entries.batchViaGit = viaGit }

// WalkLocal reads the chain at head as a batch walk reading the objects
// itself does, ignoring the entry cache, and returns its commits oldest
// first.
func WalkLocal(ctx context.Context, r *Repo, head gitobj.Hash) ([]gitobj.Hash, error) {
	return walkCommits(r.walkLocal(ctx, head, func(gitobj.Hash) bool { return false }))
}

// WalkBatch reads the chain at head through git in a batch, ignoring the
// entry cache, and returns its commits oldest first.
func WalkBatch(ctx context.Context, r *Repo, head gitobj.Hash) ([]gitobj.Hash, error) {
	return walkCommits(r.walkBatch(ctx, head, func(gitobj.Hash) bool { return false }))
}

// walkCommits returns the commits of a batch walk that reached the start,
// oldest first.
func walkCommits(entries []*Entry, _ []entryRecord, next gitobj.Hash, err error) ([]gitobj.Hash, error) {
	if err != nil {
		return nil, err
	}
	if !next.IsZero() {
		return nil, fmt.Errorf("walk stopped before the start, at %s", next)
	}
	var out []gitobj.Hash
	for i := len(entries) - 1; i >= 0; i-- {
		out = append(out, entries[i].Commit)
	}
	return out, nil
}

// RevListThread lists the thread commits from head as a batch walk does,
// page commits per rev-list, ignoring the entry cache.
func RevListThread(ctx context.Context, r *Repo, head gitobj.Hash, page int) ([]gitobj.Hash, error) {
	cs, err := r.revListThread(ctx, head, func(gitobj.Hash) bool { return false }, page)
	var out []gitobj.Hash
	for _, c := range cs {
		out = append(out, c.id)
	}
	return out, err
}

// ReadsFromCache reports whether Read would take the chain to head from
// the entry cache, making entries for the shown steps only.
func (r *Repo) ReadsFromCache(head gitobj.Hash) bool { return r.cachedReadChain(head) != nil }
