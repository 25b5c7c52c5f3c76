package thread

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/atomicfile"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// rootCacheFile keeps, for each thread head, the root (start) commit of its
// chain: "<head> <root>" lines under $GIT_COMMON_DIR/uwf/cache/. Commits
// are immutable, so a line is never stale; a missing or damaged file only
// costs the walks again.
const rootCacheFile = "cache/roots"

// sharingThreads returns the threads whose history shares commits with
// another thread's: forks, and the threads they were forked from (the
// relation that `thread graph` and `thread show` work out for one thread,
// through chain.Relatives and chain.ForkedFrom). A thread's chain is linear
// down to its start commit and a fork is a new ref on a commit of it, so
// two threads share history exactly when they have the same start commit.
// The start commit of each head comes from the root cache; a head not in
// it (a new step, a new thread) is walked back in process, through first
// parents, only until a commit the cache knows (the previous head). No git
// process is started.
func sharingThreads(ctx context.Context, repo *chain.Repo) (map[chain.ThreadID]bool, error) {
	refs, err := repo.ListRefs(ctx, chain.ThreadsPrefix)
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	if len(refs) < 2 {
		return nil, nil
	}
	path := filepath.Join(repo.UwfDir(), rootCacheFile)
	known := loadRoots(path)
	roots := make(map[string]string, len(refs)) // hex → hex
	byRoot := make(map[string][]chain.ThreadID, len(refs))
	changed := false
	for _, ref := range refs {
		id, err := chain.ParseThreadID(strings.TrimPrefix(ref.Name, chain.ThreadsPrefix))
		if err != nil || !plumbing.IsHash(ref.OID) {
			continue // not ours
		}
		head := ref.OID
		root, ok := known[head]
		if !ok {
			if root, err = rootOf(repo, head, known); err != nil {
				return nil, err
			}
			changed = true
		}
		roots[head] = root
		byRoot[root] = append(byRoot[root], id)
	}
	if changed || len(roots) != len(known) {
		_ = saveRoots(path, roots) // a cache: failing to write it costs speed only
	}
	out := map[chain.ThreadID]bool{}
	for _, ids := range byRoot {
		if len(ids) > 1 {
			for _, id := range ids {
				out[id] = true
			}
		}
	}
	return out, nil
}

// rootOf walks back from head through first parents to the start commit,
// stopping early at a commit whose root known holds.
// Commits are named in hex, as the refs and the cache file hold them.
func rootOf(repo *chain.Repo, head string, known map[string]string) (string, error) {
	c := head
	for {
		if root, ok := known[c]; ok {
			return root, nil
		}
		commit, err := gitobj.GetCommit(repo.Store.Storer(), plumbing.NewHash(c))
		if err != nil {
			return "", fmt.Errorf("read commit %s: %w", c, err)
		}
		if len(commit.ParentHashes) == 0 {
			return c, nil
		}
		c = commit.ParentHashes[0].String()
	}
}

// loadRoots reads the root cache; lines it cannot parse are skipped.
func loadRoots(path string) map[string]string {
	data, err := os.ReadFile(path)
	if err != nil {
		return map[string]string{}
	}
	text := string(data)
	known := make(map[string]string, strings.Count(text, "\n"))
	for line := range strings.Lines(text) {
		head, root, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		if ok && isObjectName(head) && isObjectName(root) { // a damaged line misses, no more
			known[head] = root
		}
	}
	return known
}

// isObjectName reports whether s is a full SHA-1 object name in lower-case
// hex, as the refs and this cache write them.
func isObjectName(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// saveRoots replaces the root cache with the current heads' roots.
func saveRoots(path string, roots map[string]string) error {
	var buf bytes.Buffer
	for _, h := range slices.Sorted(maps.Keys(roots)) {
		buf.WriteString(h + " " + roots[h] + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes(), 0o644)
}
