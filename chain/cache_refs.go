package chain

import (
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// Read-path cache (in memory, per Repo): the parsed packed-refs file, for
// single ref lookups. Invalidated when packed-refs changes (see
// gitrepo.RefFiles); loose ref files are read on every lookup.

// refFiles looks single refs up in the files ref backend of the common git
// dir, the way git does (gitrepo.RefFiles: the loose file first, then
// packed-refs, parsed once and kept while the file is unchanged). go-git's
// lookup parses packed-refs line by line into references on every call,
// which with thousands of threads costs more than the rest of a step's ref
// reads together.
type refFiles struct {
	files *gitrepo.RefFiles
}

func newRefFiles(commonDir string) *refFiles {
	return &refFiles{files: gitrepo.NewRefFiles(commonDir)}
}

// lookup returns the value of the ref name. ok is false when the files
// cannot answer for certain (reftable, a damaged ref, a read error): the
// caller then asks git.
func (f *refFiles) lookup(name string) (h gitobj.Hash, found, ok bool) {
	if f == nil {
		return gitobj.ZeroHash, false, false
	}
	oid, ok, err := f.files.Ref(name)
	if err != nil || !ok {
		return gitobj.ZeroHash, false, false
	}
	if oid == "" {
		return gitobj.ZeroHash, false, true
	}
	if !gitobj.IsHash(oid) { // SHA-256: git answers
		return gitobj.ZeroHash, false, false
	}
	return gitobj.NewHash(oid), true, true
}
