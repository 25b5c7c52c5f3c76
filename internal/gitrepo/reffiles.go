package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/git-uwf/git-uwf/internal/mmapfile"
)

// RefFiles reads refs from the files backend of one common dir, as ReadRef
// and ReadRefs do, for a process that reads refs again and again (a step
// reads its thread's and attempts' refs several times, checks whether
// fetched threads need adopting, and lists the tips of the alias index):
// one RefFiles shared by all of them parses packed-refs once. packed-refs is
// parsed once and kept while the file keeps its identity (inode, size,
// modification time): git replaces it by rename, and validates its own
// cache the same way. Safe for concurrent use.
type RefFiles struct {
	common string

	mu     sync.Mutex
	packed *packedRefs
	stamp  fileStamp
	parses int // how many times packed-refs was read and parsed (tests)
}

// NewRefFiles returns a reader of the refs in commonDir.
func NewRefFiles(commonDir string) *RefFiles { return &RefFiles{common: commonDir} }

// Ref is ReadRef with packed-refs kept between calls.
func (f *RefFiles) Ref(name string) (oid string, ok bool, err error) {
	if !isFilesBackend(f.common) || !inCommonDir(name) || !validRefName(name) {
		return "", false, nil
	}
	rr := refReader{common: f.common, cache: f}
	return rr.resolve(name, 0)
}

// Refs is Ref for many names: it checks the ref backend once, where Ref
// checks it (three system calls and a read of the config) for every name.
// Each name is still read as Ref reads it, its loose file first and then
// packed-refs as it is at that moment, so a concurrent git pack-refs
// cannot hide it. values holds the names that exist; ok is false when the
// files cannot answer for one of them (then values is nil).
func (f *RefFiles) Refs(names []string) (values map[string]string, ok bool, err error) {
	if !isFilesBackend(f.common) {
		return nil, false, nil
	}
	values = make(map[string]string, len(names))
	for _, name := range names {
		if !inCommonDir(name) || !validRefName(name) {
			return nil, false, nil
		}
		rr := refReader{common: f.common, cache: f}
		oid, ok, err := rr.resolve(name, 0)
		if !ok || err != nil {
			return nil, false, err
		}
		if oid != "" {
			values[name] = oid
		}
	}
	return values, true, nil
}

// FilesBackend reports whether the refs are stored in loose files and
// packed-refs (git's files backend), not in a reftable.
func (f *RefFiles) FilesBackend() bool { return isFilesBackend(f.common) }

// List is ReadRefs with packed-refs kept between calls.
func (f *RefFiles) List(patterns ...string) (refs []RefEntry, ok bool, err error) {
	return readRefs(f.common, patterns, true, f)
}

// ListHash is ReadHashRefs with packed-refs kept between calls.
func (f *RefFiles) ListHash(patterns ...string) (refs []RefEntry, ok bool, err error) {
	return readRefs(f.common, patterns, false, f)
}

// Each calls fn for every ref pattern matches (as ReadRefs matches it), in
// name order, with the object id its loose file or packed-refs holds,
// without listing them first: name and oid may lie in the mapping of
// packed-refs and are valid during the call only. A check of many refs
// (the adopt check digests every remote-tracking ref on each command)
// then costs neither a copy of their records nor an entry each.
//
// ok is false when ReadRefs could not answer, and also when a loose
// symbolic ref matches: Each does not resolve them. What fn saw before
// ok turned out false is to be thrown away. err is set when a ref file
// could not be read.
func (f *RefFiles) Each(pattern string, fn func(name, oid string)) (ok bool, err error) {
	if !listable(pattern) || !isFilesBackend(f.common) {
		return false, nil
	}
	base := strings.TrimSuffix(pattern, "/")
	if !validRefName(base) {
		return false, nil
	}
	rr := refReader{common: f.common, cache: f}
	// Loose refs first, as readRefs reads them (see the concurrency note
	// of ReadRefs).
	loose := map[string]looseRef{}
	if ok, err := rr.walkLoose(pattern, loose); !ok || err != nil {
		return false, err
	}
	names := make([]string, 0, len(loose))
	for name, l := range loose {
		if l.target != "" {
			return false, nil
		}
		names = append(names, name)
	}
	slices.Sort(names)
	if err := rr.loadPacked(); err != nil {
		return false, err
	}
	start := rr.packed.lowerBound(base)
	if start < 0 {
		return false, nil
	}
	next := 0 // the first loose name not yet passed on
	bad := rr.packed.matches(start, base, pattern, true, func(oid, name string) {
		for ; next < len(names) && names[next] < name; next++ {
			fn(names[next], loose[names[next]].oid)
		}
		if next < len(names) && names[next] == name {
			oid = loose[name].oid // the loose file hides the packed record
			next++
		}
		fn(name, oid)
	})
	runtime.KeepAlive(rr.packed) // fn was handed strings in its mapping
	if bad || rr.packed.malformed.Load() {
		return false, nil
	}
	for ; next < len(names); next++ {
		fn(names[next], loose[names[next]].oid)
	}
	return true, nil
}

// AnyPacked reports whether packed-refs holds a ref whose name starts with
// prefix and satisfies match, looking only at the records under prefix;
// match is handed names in place (valid during the call only). ok is false
// when the files cannot answer (another ref backend, a damaged packed-refs
// file).
func (f *RefFiles) AnyPacked(prefix string, match func(name string) bool) (found, ok bool, err error) {
	if !isFilesBackend(f.common) {
		return false, false, nil
	}
	p, err := f.packedRefs()
	if err != nil {
		return false, false, err
	}
	start := p.lowerBound(prefix)
	if start < 0 {
		return false, false, nil
	}
	p.visit(start, func(_, name string) bool {
		if !strings.HasPrefix(name, prefix) {
			return false
		}
		found = match(name)
		return !found
	})
	runtime.KeepAlive(p) // match was handed strings in its mapping
	if p.malformed.Load() {
		return false, false, nil
	}
	return found, true, nil
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

// packedRefs returns packed-refs parsed, from memory while the file is the
// one parsed last.
func (f *RefFiles) packedRefs() (*packedRefs, error) {
	path := filepath.Join(f.common, "packed-refs")
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newPackedRefs(""), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	stamp := stampOf(fi)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.packed != nil && stamp == f.stamp {
		return f.packed, nil
	}
	p, data, err := readPackedRefs(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	f.parses++
	// Keep it only if the file did not change while it was read.
	if fi2, err := os.Stat(path); err == nil && stampOf(fi2) == stamp && int64(len(data)) == stamp.size {
		f.packed, f.stamp = p, stamp
	}
	return p, nil
}

// mapPackedRefsFrom is the size from which packed-refs is mapped rather
// than read (git maps it from one byte more): a step at 100,000 threads
// spent half its time copying an 8.5 MB file into memory to look up a
// handful of names, and at 10,000 threads the copy of a 0.9 MB file took
// a fifth of a step's page faults (each new page of memory is one; the
// mapping faults only where a lookup looks, 64 KiB at a time).
const mapPackedRefsFrom = 32 << 10

// readPackedRefs reads the packed-refs file at path, mapped from
// mapPackedRefsFrom bytes on where files can be mapped (the mapping is
// released with the packedRefs; see packedRefs for which strings it hands
// out are copies), and returns it with the bytes it holds.
func readPackedRefs(path string) (*packedRefs, string, error) {
	file, err := os.Open(path)
	if err != nil {
		return newPackedRefs(""), "", err
	}
	defer file.Close()
	if fi, err := file.Stat(); err == nil && fi.Size() >= mapPackedRefsFrom {
		if b := mmapfile.Map(file, fi.Size()); b != nil {
			data := unsafe.String(&b[0], len(b))
			p := newPackedRefs(data)
			p.mapped, p.pages = true, b
			runtime.AddCleanup(p, mmapfile.Unmap, b)
			return p, data, nil
		}
	}
	data, err := readFileString(path)
	return newPackedRefs(data), data, err
}
