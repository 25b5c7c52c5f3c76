package objects

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// IsUWFRef reports whether the alias index follows the ref name:
// refs/uwf/... and refs/remotes/<remote>/uwf/....
func IsUWFRef(name string) bool {
	if strings.HasPrefix(name, "refs/uwf/") {
		return true
	}
	rest, ok := strings.CutPrefix(name, "refs/remotes/")
	if !ok {
		return false
	}
	_, rest, ok = strings.Cut(rest, "/")
	return ok && strings.HasPrefix(rest, "uwf/")
}

type tip struct {
	name string
	hash gitobj.Hash
}

// listTips returns the uwf ref tips sorted by name and their digest.
func (s *Store) listTips() ([]tip, string, error) {
	var tips []tip
	if files, ok := s.uwfRefsFromFiles(); ok {
		for name, h := range files {
			tips = append(tips, tip{name, h})
		}
		return sortTips(tips)
	}
	tips, err := s.st.uwfTips()
	if err != nil {
		return nil, "", err
	}
	return sortTips(tips)
}

// uwfTips lists the uwf ref tips through `git for-each-ref`, for when the
// ref files cannot be read in-process. Symbolic refs are not tips.
func (db *DB) uwfTips() ([]tip, error) {
	run, err := gitrepo.NewRunner(db.gitDir, []string{"GIT_DIR=" + db.gitDir})
	if err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	out, err := run.Run(context.Background(), nil, "for-each-ref",
		"--format=%(objectname) %(refname) %(symref)", "refs/uwf/", "refs/remotes/")
	if err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	var tips []tip
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line) // a third field names a symbolic ref's target
		if len(f) == 2 && IsUWFRef(f[1]) && gitobj.IsHash(f[0]) {
			tips = append(tips, tip{f[1], gitobj.NewHash(f[0])})
		}
	}
	return tips, nil
}

// sortTips sorts tips by name and computes their digest.
func sortTips(tips []tip) ([]tip, string, error) {
	slices.SortFunc(tips, func(a, b tip) int { return strings.Compare(a.name, b.name) })
	d := xxhash.New()
	for _, t := range tips {
		fmt.Fprintf(d, "%s %s\n", t.name, t.hash)
	}
	return tips, fmt.Sprintf("%016x", d.Sum64()), nil
}

// Refresh brings the alias index up to date with the uwf refs: it indexes
// the trees of every commit reachable from a ref tip that is not indexed yet.
// It is cheap when no tip moved.
func (s *Store) Refresh(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.idx.ensure(); err != nil {
		return err
	}
	return s.refreshLocked(ctx)
}

func (s *Store) refreshLocked(ctx context.Context) error {
	if err := s.idx.sync(); err != nil {
		return err
	}
	tips, digest, err := s.listTips()
	if err != nil {
		return err
	}
	if digest == s.idx.tips {
		return nil
	}
	sc := newScanner(s, s.idx.knownCommit)
	if err := sc.scanTips(ctx, tips); err != nil {
		return fmt.Errorf("refresh alias index: %w", err)
	}
	var safe, claims []string
	for _, e := range sc.entries {
		if !s.idx.has(e.alias, e.oid) {
			safe = append(safe, aliasRecord(e.alias, e.oid))
		}
	}
	for _, c := range sc.commits {
		claims = append(claims, commitRecord(c))
	}
	claims = append(claims, tipsRecord(digest))
	s.idx.appendRecords(safe, claims)
	return nil
}

// Reindex rebuilds the alias index from the uwf refs alone, replacing
// whatever it held, and returns the number of aliases indexed.
func (s *Store) Reindex(ctx context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tips, digest, err := s.listTips()
	if err != nil {
		return 0, err
	}
	sc := newScanner(s, func(gitobj.Hash) bool { return false })
	if err := sc.scanTips(ctx, tips); err != nil {
		return 0, fmt.Errorf("reindex: %w", err)
	}
	seen := map[Alias]struct{}{}
	for _, e := range sc.entries {
		seen[e.alias] = struct{}{}
	}
	if err := s.idx.replaceAll(sc.entries, sc.commits, digest); err != nil {
		return 0, err
	}
	s.idx.loaded = true
	return len(seen), nil
}

type entry struct {
	alias Alias
	oid   gitobj.Hash
}

// scanner collects alias entries from commit trees, in an order where every
// commit comes after its ancestors and after its own entries.
type scanner struct {
	s       *Store
	known   func(gitobj.Hash) bool
	done    map[gitobj.Hash]bool // commits visited in this scan
	trees   map[gitobj.Hash]bool // trees walked in this scan
	pairs   map[entry]bool
	entries []entry
	commits []gitobj.Hash
}

func newScanner(s *Store, known func(gitobj.Hash) bool) *scanner {
	return &scanner{s: s, known: known, done: map[gitobj.Hash]bool{}, trees: map[gitobj.Hash]bool{}, pairs: map[entry]bool{}}
}

func (sc *scanner) scanTips(ctx context.Context, tips []tip) error {
	for _, t := range tips {
		if sc.done[t.hash] || sc.known(t.hash) {
			continue // an indexed commit: no need to even read it
		}
		if err := sc.scanObject(ctx, t.hash, 0); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	return nil
}

// scanObject indexes whatever a ref points at: a commit, a tree or a tag.
func (sc *scanner) scanObject(ctx context.Context, h gitobj.Hash, depth int) error {
	if depth > 16 {
		return nil
	}
	obj, err := sc.s.st.EncodedObject(gitobj.AnyObject, h)
	if errors.Is(err, gitobj.ErrObjectNotFound) {
		return nil // missing (shallow or partial clone): nothing to index
	}
	if err != nil {
		return err
	}
	switch obj.Type() {
	case gitobj.CommitObject:
		return sc.scanHistory(ctx, h)
	case gitobj.TreeObject:
		return sc.scanTree(h)
	case gitobj.TagObject:
		target, err := gitobj.TagTarget(obj)
		if err != nil {
			return err
		}
		return sc.scanObject(ctx, target, depth+1)
	}
	return nil
}

// scanHistory walks a commit's not-yet-indexed history, ancestors first.
func (sc *scanner) scanHistory(ctx context.Context, tipHash gitobj.Hash) error {
	type frame struct {
		c    *gitobj.Commit
		next int // index of the next parent to visit
	}
	visit := func(h gitobj.Hash) (*gitobj.Commit, error) {
		if sc.done[h] || sc.known(h) {
			return nil, nil
		}
		sc.done[h] = true
		c, err := gitobj.GetCommit(sc.s.st, h)
		if errors.Is(err, gitobj.ErrObjectNotFound) {
			return nil, nil
		}
		return c, err
	}
	root, err := visit(tipHash)
	if err != nil || root == nil {
		return err
	}
	stack := []frame{{c: root}}
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		top := &stack[len(stack)-1]
		if top.next < len(top.c.ParentHashes) {
			p := top.c.ParentHashes[top.next]
			top.next++
			c, err := visit(p)
			if err != nil {
				return err
			}
			if c != nil {
				stack = append(stack, frame{c: c})
			}
			continue
		}
		if err := sc.scanTree(top.c.TreeHash); err != nil {
			return err
		}
		sc.commits = append(sc.commits, top.c.Hash)
		stack = stack[:len(stack)-1]
	}
	return nil
}

// scanTree records every blob entry named by an alias, recursively.
func (sc *scanner) scanTree(h gitobj.Hash) error {
	if sc.trees[h] {
		return nil
	}
	sc.trees[h] = true
	t, err := gitobj.GetTree(sc.s.st, h)
	if errors.Is(err, gitobj.ErrObjectNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range t.Entries {
		switch e.Mode {
		case gitobj.ModeDir:
			if err := sc.scanTree(e.Hash); err != nil {
				return err
			}
		case gitobj.ModeRegular, gitobj.ModeExecutable, gitobj.ModeDeprecated:
			if IsAlias(e.Name) {
				en := entry{Alias(e.Name), e.Hash}
				if !sc.pairs[en] {
					sc.pairs[en] = true
					sc.entries = append(sc.entries, en)
				}
			}
		}
	}
	return nil
}
