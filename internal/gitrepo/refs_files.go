package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-uwf/git-uwf/internal/mmapfile"
)

// Reading refs in-process.
//
// Listing refs through `git for-each-ref` costs a process start and git's
// own setup, which is as much as the listing itself for a few thousand
// refs. ReadRefs and ReadRef read the "files" ref backend directly: the
// packed-refs file and the loose ref files under refs/. They answer only
// what they can answer exactly as git would; whenever anything is out of
// the ordinary (another ref backend, a glob pattern, a per-worktree ref, a
// broken or oddly named ref, a symbolic link) they report ok=false and the
// caller asks git.
//
// Concurrency. Like git, the loose refs are read before packed-refs. `git
// pack-refs` first renames a new packed-refs into place and then deletes
// the loose files it packed, and a ref deletion removes the ref from
// packed-refs before removing its loose file, so a ref that is not being
// updated during the read is always seen with its value: either its loose
// file was read, or it was gone and the packed-refs read afterwards already
// holds it. A ref updated or deleted during the read is reported with
// either its old or its new value (or as absent when it was deleted), as
// with for-each-ref. The result is not an atomic snapshot across refs;
// neither is git's. Ref files are replaced by rename, so no torn value is
// ever read.

// perWorktreeRefs are the namespaces git keeps per work tree (in the
// worktree's own git directory, not in the common dir).
var perWorktreeRefs = []string{"refs/worktree", "refs/bisect", "refs/rewritten"}

// symrefMaxDepth is how many symbolic refs git follows (SYMREF_MAXDEPTH).
const symrefMaxDepth = 5

// ReadRefs lists the refs matching patterns from the files backend of the
// repository whose common git directory is commonDir, as `git for-each-ref
// --format='%(objectname) %(refname)' patterns...` would: sorted by name,
// each once, symbolic refs resolved to their target's object id (dangling
// ones left out). A pattern matches a ref that equals it or starts with it
// followed by a slash, or any ref that starts with it when it ends in a
// slash; glob patterns are not supported.
//
// ok is false, with a nil error, when the answer must come from git: the
// repository does not use the files backend (reftable, or any
// extensions.refStorage), a pattern is empty, a glob, outside refs/ or
// covers per-worktree refs, or a matching ref is broken, has a name git
// would reject, or is a symbolic link. err is set when a ref file could not
// be read; ok is then false too. Object ids are not checked to exist, as
// for-each-ref does not check them for this format.
func ReadRefs(commonDir string, patterns ...string) (refs []RefEntry, ok bool, err error) {
	return readRefs(commonDir, patterns, true, nil)
}

// ReadHashRefs is ReadRefs without symbolic refs: it lists only the refs
// that hold an object id themselves (what go-git calls hash references).
// A loose symbolic ref still hides a packed ref of the same name.
func ReadHashRefs(commonDir string, patterns ...string) (refs []RefEntry, ok bool, err error) {
	return readRefs(commonDir, patterns, false, nil)
}

// ReadRef reads one ref from the files backend of commonDir, following
// symbolic refs: oid is its object id, or "" when the ref does not exist
// (or is a dangling symbolic ref). ok and err are as for ReadRefs. A loose
// ref is read before packed-refs, so a ref that is not being updated is
// always found.
func ReadRef(commonDir, name string) (oid string, ok bool, err error) {
	if !isFilesBackend(commonDir) || !inCommonDir(name) || !validRefName(name) {
		return "", false, nil
	}
	rr := refReader{common: commonDir}
	return rr.resolve(name, 0)
}

// refReader reads refs from one common dir; packed-refs is read at most
// once, after any loose ref that is read first.
type refReader struct {
	common string
	packed *packedRefs
	cache  *RefFiles // when set, packed-refs comes from it
}

// isFilesBackend reports whether commonDir holds refs in the files
// backend. Any refStorage extension (even "files") sends the caller to git.
func isFilesBackend(commonDir string) bool {
	if fi, err := os.Stat(filepath.Join(commonDir, "refs")); err != nil || !fi.IsDir() {
		return false
	}
	if _, err := os.Lstat(filepath.Join(commonDir, "reftable")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	cfg, err := os.ReadFile(filepath.Join(commonDir, "config"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return !bytes.Contains(bytes.ToLower(cfg), []byte("refstorage"))
}

// inCommonDir reports whether refs named name (or under it) live in the
// common dir: under refs/, and not in a per-worktree namespace.
func inCommonDir(name string) bool {
	name = strings.TrimSuffix(name, "/")
	if !strings.HasPrefix(name, "refs/") {
		return false
	}
	for _, p := range perWorktreeRefs {
		if name == p || strings.HasPrefix(name, p+"/") {
			return false
		}
	}
	return true
}

// matchPattern is for-each-ref's literal pattern match.
func matchPattern(name, pattern string) bool {
	if !strings.HasPrefix(name, pattern) {
		return false
	}
	return len(name) == len(pattern) || name[len(pattern)] == '/' || pattern[len(pattern)-1] == '/'
}

// listCopyFrom is the number of packed records a listing takes from a
// mapped packed-refs from which it reads one copy of the records it covers
// instead of copying each name and object id.
const listCopyFrom = 4096

// readRefs is ReadRefs (resolve) or ReadHashRefs; packed-refs comes from
// cache when it is set.
func readRefs(commonDir string, patterns []string, resolve bool, cache *RefFiles) ([]RefEntry, bool, error) {
	if len(patterns) == 0 || !isFilesBackend(commonDir) {
		return nil, false, nil
	}
	for _, p := range patterns {
		if !listable(p) {
			return nil, false, nil
		}
	}
	rr := refReader{common: commonDir, cache: cache}
	// Loose refs first (see the concurrency note above).
	loose := map[string]looseRef{}
	for _, p := range patterns {
		if ok, err := rr.walkLoose(p, loose); !ok || err != nil {
			return nil, false, err
		}
	}
	if err := rr.loadPacked(); err != nil {
		return nil, false, err
	}
	starts := make([]int, len(patterns))
	ends := make([]int, len(patterns))
	size := len(loose)
	for i, p := range patterns {
		base := strings.TrimSuffix(p, "/")
		start, end := rr.packed.lowerBound(base), rr.packed.lowerBound(base+"0") // '0' follows '/'
		if start < 0 || end < 0 {
			return nil, false, nil
		}
		starts[i], ends[i] = start, end
		size += strings.Count(rr.packed.data[start:end], "\n")
	}
	// listed is what the records are read from: packed-refs, or a copy of
	// the part of it the listing covers.
	listed := rr.packed
	if p := rr.packed; p.mapped && size-len(loose) > listCopyFrom {
		// Names from a mapping are copied one by one; for a long listing
		// one copy of the bytes from the first listed record to the end of
		// the last (whole records, in order) costs less time and memory,
		// and the offsets move by where the copy starts. Not the whole
		// file: a listing of one namespace in a file that also holds
		// another (a clone's remote-tracking refs beside its threads)
		// would copy both. Records between two patterns' ranges are
		// copied too. The mapping's pages read so far are given back, so
		// that they are not resident twice.
		lo, hi := len(p.data), 0
		for i := range starts {
			if starts[i] < ends[i] { // an empty range copies nothing
				lo, hi = min(lo, starts[i]), max(hi, ends[i])
			}
		}
		listed = &packedRefs{data: strings.Clone(p.data[lo:hi]), sorted: true}
		for i := range starts {
			if starts[i] < ends[i] {
				starts[i] -= lo
			} else {
				starts[i] = hi - lo // nothing to list: the copy's end
			}
		}
		mmapfile.DropPages(p.pages)
	}
	out := make([]RefEntry, 0, size)
	for i, p := range patterns {
		base := strings.TrimSuffix(p, "/")
		if !validRefName(base) {
			return nil, false, nil
		}
		bad := listed.matches(starts[i], base, p, false, func(oid, name string) {
			if _, shadowed := loose[name]; !shadowed {
				out = append(out, RefEntry{Name: name, OID: oid})
			}
		})
		if bad || listed.malformed.Load() {
			return nil, false, nil
		}
	}
	for name, l := range loose {
		if l.target == "" {
			out = append(out, RefEntry{Name: name, OID: l.oid})
			continue
		}
		if !resolve {
			continue
		}
		oid, ok, err := rr.resolve(l.target, 1)
		if !ok || err != nil {
			return nil, false, err
		}
		if oid != "" {
			out = append(out, RefEntry{Name: name, OID: oid})
		}
	}
	slices.SortFunc(out, func(a, b RefEntry) int { return strings.Compare(a.Name, b.Name) })
	// Overlapping patterns list a ref more than once.
	out = slices.CompactFunc(out, func(a, b RefEntry) bool { return a.Name == b.Name })
	return out, true, nil
}

// listable reports whether ReadRefs can answer for pattern: not empty,
// no glob, no empty component, and in the common dir.
func listable(pattern string) bool {
	return pattern != "" && !strings.ContainsAny(pattern, "*?[\\") && inCommonDir(pattern) && !strings.Contains(pattern, "//")
}

// looseRef is a loose ref file's content: an object id or a symbolic
// ref's target.
type looseRef struct {
	oid, target string
}

// walkLoose adds the loose refs matching pattern to into. ok is false when
// a ref must be left to git.
func (rr *refReader) walkLoose(pattern string, into map[string]looseRef) (bool, error) {
	base := strings.TrimSuffix(pattern, "/")
	root := filepath.Join(rr.common, filepath.FromSlash(base))
	fi, err := os.Lstat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("read refs: %w", err)
	case fi.Mode().IsRegular():
		if !matchPattern(base, pattern) {
			return true, nil
		}
		return rr.addLoose(base, root, into)
	case !fi.IsDir():
		return false, nil
	}
	return rr.walkDir(base, root, into)
}

func (rr *refReader) walkDir(name, dir string, into map[string]looseRef) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return true, nil // removed while we walked
		}
		return false, fmt.Errorf("read refs: %w", err)
	}
	for _, e := range entries {
		n := e.Name()
		if n[0] == '.' || strings.HasSuffix(n, ".lock") {
			continue // git skips these too
		}
		child, path := name+"/"+n, filepath.Join(dir, n)
		var ok bool
		switch {
		case e.IsDir():
			ok, err = rr.walkDir(child, path, into)
		case e.Type().IsRegular():
			ok, err = rr.addLoose(child, path, into)
		default:
			ok = false // symbolic links and the like: git's business
		}
		if !ok || err != nil {
			return ok, err
		}
	}
	return true, nil
}

func (rr *refReader) addLoose(name, path string, into map[string]looseRef) (bool, error) {
	if !validRefName(name) {
		return false, nil
	}
	l, found, ok, err := readLoose(path)
	if found && ok && err == nil {
		into[name] = l
	}
	return ok, err
}

// maxLooseRef is the most a loose ref file can hold: "ref: " and a ref
// name, which git keeps shorter than a path, and a newline.
const maxLooseRef = 8 << 10

// Errors of readSmallFile for what git is left to read.
var (
	errTooLarge = errors.New("longer than a loose ref")
	errSymlink  = errors.New("a symbolic link")
)

// readLoose reads a loose ref file; found is false when it does not exist
// (or was deleted while we walked, or is a directory). A symbolic link, a
// file longer than a ref can be and a FIFO (which reads as empty) are left
// to git (ok false).
func readLoose(path string) (l looseRef, found, ok bool, err error) {
	data, err := readSmallFile(path, maxLooseRef)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
			return l, false, true, nil
		}
		if errors.Is(err, errTooLarge) || errors.Is(err, errSymlink) {
			return l, false, false, nil
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && isDirErr(pe) {
			return l, false, true, nil // a directory of refs, not a ref
		}
		return l, false, false, fmt.Errorf("read ref: %w", err)
	}
	l, ok = parseLoose(data)
	return l, true, ok, nil
}

func isDirErr(pe *fs.PathError) bool {
	fi, err := os.Lstat(pe.Path)
	return err == nil && fi.IsDir()
}

// parseLoose parses a loose ref file: "<hex oid>\n" or "ref: <target>\n".
func parseLoose(data []byte) (looseRef, bool) {
	if rest, ok := bytes.CutPrefix(data, []byte("ref:")); ok {
		target := string(bytes.TrimSpace(rest))
		if !inCommonDir(target) || !validRefName(target) {
			return looseRef{}, false
		}
		return looseRef{target: target}, true
	}
	n := 0
	for n < len(data) && isLowerHex(data[n]) {
		n++
	}
	if !validOIDLen(n) || len(bytes.TrimSpace(data[n:])) != 0 || (n < len(data) && !isSpace(data[n])) {
		return looseRef{}, false
	}
	return looseRef{oid: string(data[:n])}, true
}

// resolve reads name (loose, then packed), following symbolic refs.
func (rr *refReader) resolve(name string, depth int) (string, bool, error) {
	if depth > symrefMaxDepth {
		return "", false, nil
	}
	l, found, ok, err := readLoose(filepath.Join(rr.common, filepath.FromSlash(name)))
	if !ok || err != nil {
		return "", false, err
	}
	if found {
		if l.target == "" {
			return l.oid, true, nil
		}
		return rr.resolve(l.target, depth+1)
	}
	if err := rr.loadPacked(); err != nil {
		return "", false, err
	}
	oid, ok := rr.packed.lookup(name)
	return oid, ok, nil
}

func (rr *refReader) loadPacked() error {
	if rr.packed != nil {
		return nil
	}
	if rr.cache != nil {
		p, err := rr.cache.packedRefs()
		rr.packed = p
		return err
	}
	data, err := readFileString(filepath.Join(rr.common, "packed-refs"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read packed-refs: %w", err)
	}
	rr.packed = newPackedRefs(data)
	return nil
}

// readFileString reads a file into a string without the copy that
// string(os.ReadFile(…)) makes: packed-refs can be megabytes.
func readFileString(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if fi, err := f.Stat(); err == nil {
		b.Grow(int(fi.Size()) + 512)
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

func isLowerHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// validOIDLen: SHA-1 or SHA-256 in hex.
func validOIDLen(n int) bool { return n == 40 || n == 64 }

// validRefName is git's check_refname_format for a full ref name (no
// pattern characters), erring on the side of rejecting: a name rejected
// here is left to git.
func validRefName(name string) bool { return name != "@" && validRefPath(name) }

// ValidRefName reports whether git check-ref-format accepts name, a full
// ref name, without starting git. It errs on the side of rejecting: a
// caller that must be exact asks git about a name it rejects.
func ValidRefName(name string) bool { return validRefName(name) }

// validRefPath is validRefName for a name or the part of a name after a
// slash, when what comes before it is valid. It runs on every listed ref,
// so in one pass over the bytes, with a table.
func validRefPath(s string) bool {
	if s == "" {
		return false
	}
	comp := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch refByteClass[c] {
		case refByteOrdinary:
			continue
		case refByteBad:
			return false
		}
		switch {
		case c == '/':
			if !validRefComponent(s[comp:i]) {
				return false
			}
			comp = i + 1
		case c == '.' && i > 0 && s[i-1] == '.', c == '{' && i > 0 && s[i-1] == '@':
			return false
		}
	}
	return validRefComponent(s[comp:]) && s[len(s)-1] != '.'
}

func validRefComponent(comp string) bool {
	return comp != "" && comp[0] != '.' && !strings.HasSuffix(comp, ".lock")
}

const (
	refByteOrdinary = iota
	refByteBad      // never allowed in a ref name
	refByteSpecial  // allowed, but not everywhere: '/', '.', '{'
)

var refByteClass = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = refByteBad
	}
	for _, c := range []byte{0x7f, ' ', '~', '^', ':', '?', '*', '[', '\\'} {
		t[c] = refByteBad
	}
	for _, c := range []byte{'/', '.', '{'} {
		t[c] = refByteSpecial
	}
	return t
}()
