package objects

import (
	"path/filepath"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// uwfRefsFromFiles reads the uwf ref tips straight from the ref files of
// the common dir the index lives in (packed-refs and the loose refs under
// refs/uwf/ and refs/remotes/, loose winning; see gitrepo.ReadHashRefs).
// go-git's reference iterator walks every ref with a symlink-resolving
// stat per path component, which costs seconds with 20,000 loose refs.
// Symbolic refs are not tips. ok is false when the index is not on disk
// or the refs cannot be read in-process (reftable, a broken ref, …): the
// caller then asks git for-each-ref.
func (s *Store) uwfRefsFromFiles() (tips map[string]gitobj.Hash, ok bool) {
	dir := s.idx.dir
	suffix := string(filepath.Separator) + filepath.FromSlash(IndexDirName)
	if dir == "" || !strings.HasSuffix(dir, suffix) {
		return nil, false
	}
	var refs []gitrepo.RefEntry
	var err error
	if s.refs != nil {
		refs, ok, err = s.refs.ListHash("refs/uwf/", "refs/remotes/")
	} else {
		refs, ok, err = gitrepo.ReadHashRefs(strings.TrimSuffix(dir, suffix), "refs/uwf/", "refs/remotes/")
	}
	if !ok || err != nil {
		return nil, false
	}
	tips = make(map[string]gitobj.Hash, len(refs))
	for _, r := range refs {
		if IsUWFRef(r.Name) && gitobj.IsHash(r.OID) {
			tips[r.Name] = gitobj.NewHash(r.OID)
		}
	}
	return tips, true
}
