package chain

import (
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// treeBuilder assembles a nested git tree from paths.
type treeBuilder struct {
	blobs map[string]gitobj.Hash // file name → blob
	trees map[string]gitobj.Hash // existing subtree by name
	dirs  map[string]*treeBuilder
}

func newTree() *treeBuilder {
	return &treeBuilder{blobs: map[string]gitobj.Hash{}, trees: map[string]gitobj.Hash{}, dirs: map[string]*treeBuilder{}}
}

// blob puts a blob at a slash-separated path.
func (t *treeBuilder) blob(path string, oid gitobj.Hash) {
	dir, name, ok := strings.Cut(path, "/")
	if !ok {
		t.blobs[dir] = oid
		return
	}
	sub := t.dirs[dir]
	if sub == nil {
		sub = newTree()
		t.dirs[dir] = sub
	}
	sub.blob(name, oid)
}

// subtree puts an existing tree object under name.
func (t *treeBuilder) subtree(name string, oid gitobj.Hash) { t.trees[name] = oid }

// write stores the tree (and its new subtrees) and returns its oid.
func (t *treeBuilder) write(s gitobj.Storer) (gitobj.Hash, error) {
	var entries []gitobj.TreeEntry
	for name, oid := range t.blobs {
		entries = append(entries, gitobj.TreeEntry{Name: name, Mode: gitobj.ModeRegular, Hash: oid})
	}
	for name, oid := range t.trees {
		entries = append(entries, gitobj.TreeEntry{Name: name, Mode: gitobj.ModeDir, Hash: oid})
	}
	for name, sub := range t.dirs {
		oid, err := sub.write(s)
		if err != nil {
			return gitobj.ZeroHash, err
		}
		entries = append(entries, gitobj.TreeEntry{Name: name, Mode: gitobj.ModeDir, Hash: oid})
	}
	gitobj.SortEntries(entries)
	tree := &gitobj.Tree{Entries: entries}
	obj := s.NewEncodedObject()
	if err := tree.Encode(obj); err != nil {
		return gitobj.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	// A tree that exists already (every read of a pinned workflow
	// recomputes one) is not compressed and written again.
	if h := obj.Hash(); s.HasEncodedObject(h) == nil {
		return h, nil
	}
	return s.SetEncodedObject(obj)
}

// writeBlob stores raw bytes as a blob (used for the human-readable files).
func writeBlob(s gitobj.Storer, data []byte) (gitobj.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(gitobj.BlobObject)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return gitobj.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return gitobj.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return gitobj.ZeroHash, err
	}
	h := obj.Hash()
	if s.HasEncodedObject(h) == nil {
		return h, nil
	}
	return s.SetEncodedObject(obj)
}

// nodeSet collects the nodes a commit introduces, with their schemas.
type nodeSet map[objects.Alias]gitobj.Hash

// add records a node and its schema chain up to the meta-schema.
func (r *Repo) addNode(set nodeSet, n objects.Node) error {
	set[n.Alias] = n.OID
	for n.Type != n.Alias {
		if _, seen := set[n.Type]; seen {
			return nil
		}
		typ, err := r.Store.Get(n.Type)
		if err != nil {
			return fmt.Errorf("schema %s of node %s: %w", n.Type, n.Alias, err)
		}
		set[typ.Alias] = typ.OID
		n = typ
	}
	return nil
}

// collect adds root and every node reachable from it through uwf_ref fields,
// not descending into the aliases in stop (already reachable from history).
func (r *Repo) collect(set nodeSet, root objects.Alias, stop map[objects.Alias]bool) error {
	queue := []objects.Alias{root}
	seen := map[objects.Alias]bool{root: true}
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		n, err := r.Store.Get(a)
		if err != nil {
			return fmt.Errorf("node %s: %w", a, err)
		}
		if err := r.addNode(set, n); err != nil {
			return err
		}
		refs, err := r.Store.Refs(n)
		if err != nil {
			return fmt.Errorf("refs of %s: %w", a, err)
		}
		for _, ref := range refs {
			if !seen[ref] && !stop[ref] {
				seen[ref] = true
				queue = append(queue, ref)
			}
		}
	}
	return nil
}

func (t *treeBuilder) nodes(dir string, set nodeSet) {
	for a, oid := range set {
		t.blob(dir+"/"+string(a), oid)
	}
}

// treeEntry finds a path in a tree; zero hash when absent.
func treeEntry(s gitobj.Storer, tree gitobj.Hash, path string) (gitobj.Hash, error) {
	t, err := gitobj.GetTree(s, tree)
	if err != nil {
		return gitobj.ZeroHash, fmt.Errorf("read tree %s: %w", tree, err)
	}
	e, err := gitobj.FindEntry(s, t, path)
	if err != nil {
		if err == gitobj.ErrEntryNotFound || err == gitobj.ErrDirectoryNotFound {
			return gitobj.ZeroHash, nil
		}
		return gitobj.ZeroHash, err
	}
	return e.Hash, nil
}

// topEntry returns the hash of a top-level entry of t (zero if t is nil or
// has none).
func topEntry(t *gitobj.Tree, name string) gitobj.Hash {
	if t == nil {
		return gitobj.ZeroHash
	}
	for _, e := range t.Entries {
		if e.Name == name {
			return e.Hash
		}
	}
	return gitobj.ZeroHash
}
