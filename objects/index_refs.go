package objects

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// uwfRefsFromFiles reads the uwf ref tips straight from the ref files of
// the common dir the index lives in: packed-refs, then the loose refs under
// refs/uwf/ and refs/remotes/ (loose wins). go-git's reference iterator
// walks every ref with a symlink-resolving stat per path component, which
// costs seconds with 20,000 loose refs. ok is false when the layout is not
// the files backend (reftable) or the index is not on disk: the caller
// then asks go-git.
func (s *Store) uwfRefsFromFiles() (tips map[string]plumbing.Hash, ok bool) {
	dir := s.idx.dir
	suffix := string(filepath.Separator) + filepath.FromSlash(IndexDirName)
	if dir == "" || !strings.HasSuffix(dir, suffix) {
		return nil, false
	}
	common := strings.TrimSuffix(dir, suffix)
	if _, err := os.Stat(filepath.Join(common, "reftable")); err == nil {
		return nil, false
	}
	tips = map[string]plumbing.Hash{}
	if f, err := os.Open(filepath.Join(common, "packed-refs")); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if len(line) < 42 || line[0] == '#' || line[0] == '^' || line[40] != ' ' {
				continue
			}
			if name := string(line[41:]); IsUWFRef(name) && plumbing.IsHash(string(line[:40])) {
				tips[name] = plumbing.NewHash(string(line[:40]))
			}
		}
		err := sc.Err()
		f.Close()
		if err != nil {
			return nil, false
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	failed := false
	for _, sub := range []string{"refs/uwf", "refs/remotes"} {
		root := filepath.Join(common, filepath.FromSlash(sub))
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() || strings.HasSuffix(d.Name(), ".lock") {
				return nil
			}
			rel, err := filepath.Rel(common, path)
			if err != nil {
				return err
			}
			name := filepath.ToSlash(rel)
			if !IsUWFRef(name) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // deleted while we walked
				}
				return err
			}
			data = bytes.TrimSpace(data)
			if plumbing.IsHash(string(data)) {
				tips[name] = plumbing.NewHash(string(data))
			} else {
				delete(tips, name) // symbolic: not a tip, as with go-git
			}
			return nil
		})
		if err != nil {
			failed = true
		}
	}
	if failed {
		return nil, false
	}
	return tips, true
}
