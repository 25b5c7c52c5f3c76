package chain

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// refFiles looks single uwf refs up in the files ref backend of a common
// git dir, the way git does: the loose file first, then packed-refs.
// go-git's lookup parses packed-refs line by line into references on every
// call, which with thousands of threads costs more than the rest of a
// step's ref reads together. packed-refs is read once and kept while its
// identity (inode, size, modification time) stays the same, as git's own
// cache is validated.
type refFiles struct {
	common string

	mu     sync.Mutex
	packed []byte
	stamp  fileStamp
}

// fileStamp identifies one version of a file that is replaced by rename.
type fileStamp struct {
	ino   uint64
	size  int64
	mtime time.Time
}

func stampOf(fi fs.FileInfo) fileStamp {
	return fileStamp{ino: inodeOf(fi), size: fi.Size(), mtime: fi.ModTime()}
}

// lookup returns the value of the ref name. ok is false when the files
// cannot answer for certain (reftable, a symbolic or damaged ref, a ref
// outside refs/uwf/, a read error): the caller then asks go-git.
func (f *refFiles) lookup(name string) (h plumbing.Hash, found, ok bool) {
	if f == nil || f.common == "" || !strings.HasPrefix(name, "refs/uwf/") || strings.Contains(name, "..") {
		return plumbing.ZeroHash, false, false
	}
	if _, err := os.Stat(filepath.Join(f.common, "reftable")); err == nil {
		return plumbing.ZeroHash, false, false
	}
	data, err := os.ReadFile(filepath.Join(f.common, filepath.FromSlash(name)))
	switch {
	case err == nil:
		v := string(bytes.TrimSpace(data))
		if !plumbing.IsHash(v) {
			return plumbing.ZeroHash, false, false // symbolic or damaged
		}
		return plumbing.NewHash(v), true, true
	case !errors.Is(err, fs.ErrNotExist):
		return plumbing.ZeroHash, false, false
	}
	packed, err := f.packedRefs()
	if err != nil {
		return plumbing.ZeroHash, false, false
	}
	return findPacked(packed, name)
}

// packedRefs returns the content of packed-refs (nil when there is none).
func (f *refFiles) packedRefs() ([]byte, error) {
	path := filepath.Join(f.common, "packed-refs")
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	stamp := stampOf(fi)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.packed != nil && stamp == f.stamp {
		return f.packed, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// Keep it only if it did not change while it was read.
	if fi2, err := os.Stat(path); err == nil && stampOf(fi2) == stamp && int64(len(data)) == stamp.size {
		f.packed, f.stamp = data, stamp
	}
	return data, nil
}

// findPacked finds the line "<oid> <name>" in the content of packed-refs.
func findPacked(packed []byte, name string) (h plumbing.Hash, found, ok bool) {
	needle := " " + name
	for rest, off := packed, 0; ; {
		i := bytes.Index(rest, []byte(needle))
		if i < 0 {
			return plumbing.ZeroHash, false, true
		}
		at := off + i
		end := at + len(needle)
		next := end - off
		rest, off = rest[next:], end
		if end < len(packed) && packed[end] != '\n' && packed[end] != '\r' {
			continue // a longer name
		}
		start := at - 40
		if start < 0 || (start > 0 && packed[start-1] != '\n') {
			continue
		}
		v := string(packed[start:at])
		if !plumbing.IsHash(v) {
			continue
		}
		return plumbing.NewHash(v), true, true
	}
}
