package objects

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/gofrs/flock"
)

// formatVersion is the on-disk format of the alias index. A file with any
// other version is discarded and rebuilt.
//
//	1: one append-only text log "aliases.log". First line "uwf-alias-index 1";
//	   then records "a <alias> <oid>" (alias seen at oid), "c <commit>"
//	   (commit fully indexed, with all its ancestors), "t <digest>" (XXH64 of
//	   the sorted ref tips already covered), each followed by " <crc>", the
//	   low 32 bits of the XXH64 of the record, in hex. Lines that are torn or
//	   fail their check are skipped.
const formatVersion = 1

const (
	indexLogName  = "aliases.log"
	indexLockName = "aliases.lock"
)

func indexHeader() string { return "uwf-alias-index " + strconv.Itoa(formatVersion) + "\n" }

// index is the in-memory alias index; when dir is set it mirrors the log file
// in dir exactly (up to off). All methods are called with Store.mu held.
type index struct {
	dir string

	aliases map[Alias][]plumbing.Hash
	commits map[plumbing.Hash]struct{}
	tips    string
	loaded  bool

	file     os.FileInfo // the log file the memory mirrors; nil if none yet
	off      int64       // bytes of file already applied
	readOnly bool        // writing failed once: keep the index in memory only
}

func newIndex(dir string) *index {
	x := &index{dir: dir}
	x.reset()
	return x
}

func (x *index) reset() {
	x.aliases = map[Alias][]plumbing.Hash{}
	x.commits = map[plumbing.Hash]struct{}{}
	x.tips = ""
	x.file = nil
	x.off = 0
}

func (x *index) persistent() bool { return x.dir != "" && !x.readOnly }

func (x *index) logPath() string { return filepath.Join(x.dir, indexLogName) }

// add applies one alias record to memory.
func (x *index) add(a Alias, oid plumbing.Hash) bool {
	if slices.Contains(x.aliases[a], oid) {
		return false
	}
	x.aliases[a] = append(x.aliases[a], oid)
	return true
}

func (x *index) lookup(a Alias) []plumbing.Hash { return x.aliases[a] }

func (x *index) has(a Alias, oid plumbing.Hash) bool { return slices.Contains(x.aliases[a], oid) }

// ensure loads the index once.
func (x *index) ensure() error {
	if x.loaded {
		return nil
	}
	if err := x.sync(); err != nil {
		return err
	}
	x.loaded = true
	return nil
}

// sync brings memory up to date with the log file: it applies records other
// processes appended, or reloads everything when the file was replaced,
// removed or has another format version.
func (x *index) sync() error {
	if !x.persistent() {
		return nil
	}
	f, err := os.Open(x.logPath())
	if errors.Is(err, fs.ErrNotExist) {
		if x.file != nil {
			x.reset() // deleted under us: start over
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("open alias index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat alias index: %w", err)
	}
	if x.file == nil || !os.SameFile(fi, x.file) || fi.Size() < x.off {
		x.reset()
	}
	if _, err := f.Seek(x.off, io.SeekStart); err != nil {
		return fmt.Errorf("read alias index: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("read alias index: %w", err)
	}
	end := bytes.LastIndexByte(data, '\n') + 1 // only complete lines
	data = data[:end]
	if x.off == 0 && len(data) > 0 {
		h := indexHeader()
		if !bytes.HasPrefix(data, []byte(h)) {
			return x.discard()
		}
		data = data[len(h):]
		x.off = int64(len(h))
	}
	x.apply(data)
	x.off += int64(len(data))
	x.file = fi
	return nil
}

// apply parses complete record lines into memory, skipping bad ones.
func (x *index) apply(data []byte) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return
		}
		line := string(data[:i])
		data = data[i+1:]
		rec, ok := checkRecord(line)
		if !ok {
			continue
		}
		kind, rest, _ := strings.Cut(rec, " ")
		switch kind {
		case "a":
			a, o, ok := strings.Cut(rest, " ")
			if !ok || !IsAlias(a) {
				continue
			}
			if oid, ok := parseHash(o); ok {
				x.add(Alias(a), oid)
			}
		case "c":
			if oid, ok := parseHash(rest); ok {
				x.commits[oid] = struct{}{}
			}
		case "t":
			x.tips = rest
		}
	}
}

func parseHash(s string) (plumbing.Hash, bool) {
	if len(s) != 40 {
		return plumbing.ZeroHash, false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return plumbing.ZeroHash, false
		}
	}
	return plumbing.NewHash(s), true
}

func recordCRC(rec string) string {
	return fmt.Sprintf("%08x", uint32(xxhash.Sum64String(rec)))
}

func record(rec string) string { return rec + " " + recordCRC(rec) + "\n" }

func checkRecord(line string) (string, bool) {
	i := strings.LastIndexByte(line, ' ')
	if i < 0 || line[i+1:] != recordCRC(line[:i]) {
		return "", false
	}
	return line[:i], true
}

func aliasRecord(a Alias, oid plumbing.Hash) string {
	return record("a " + string(a) + " " + oid.String())
}
func commitRecord(c plumbing.Hash) string { return record("c " + c.String()) }
func tipsRecord(d string) string          { return record("t " + d) }

// discard replaces a log file of another version with an empty one.
func (x *index) discard() error {
	x.reset()
	err := x.locked(func() error {
		// Re-check under the lock: another process may have fixed it.
		if b, err := readPrefix(x.logPath(), len(indexHeader())); err == nil && string(b) == indexHeader() {
			return nil
		}
		return writeFileAtomic(x.logPath(), []byte(indexHeader()))
	})
	if err != nil {
		return fmt.Errorf("rebuild alias index: %w", err)
	}
	return x.sync()
}

func readPrefix(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	m, err := io.ReadFull(f, b)
	return b[:m], err
}

// locked runs fn while holding the index directory's file lock.
func (x *index) locked(fn func() error) error {
	if err := os.MkdirAll(x.dir, 0o755); err != nil {
		return err
	}
	l := flock.New(filepath.Join(x.dir, indexLockName))
	if err := l.Lock(); err != nil {
		return err
	}
	defer l.Unlock()
	return fn()
}

// writeFileAtomic writes data to a temporary file and renames it over path.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// appendRecords persists records and applies them to memory. safe are
// records that are valid in any log file (alias records); claims are records
// that state completeness (commit and tips records) and are only written to
// the file the memory currently mirrors. Failing to write the file is not an
// error: the index then stays in memory only.
func (x *index) appendRecords(safe, claims []string) {
	if !x.persistent() {
		x.apply([]byte(strings.Join(safe, "") + strings.Join(claims, "")))
		return
	}
	var wroteAll, sameFile bool
	var sizeBefore, sizeAfter int64
	var fi os.FileInfo
	err := x.locked(func() error {
		f, err := os.OpenFile(x.logPath(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		sizeBefore = st.Size()
		var buf []byte
		if sizeBefore == 0 {
			buf = append(buf, indexHeader()...)
		} else {
			h := make([]byte, len(indexHeader()))
			if _, err := f.ReadAt(h, 0); err != nil || string(h) != indexHeader() {
				return errors.New("alias index has another format")
			}
			last := make([]byte, 1)
			if _, err := f.ReadAt(last, sizeBefore-1); err == nil && last[0] != '\n' {
				buf = append(buf, '\n') // terminate a torn line
			}
		}
		sameFile = (x.file == nil && x.off == 0 && sizeBefore == 0 && len(x.commits) == 0) ||
			(x.file != nil && os.SameFile(st, x.file))
		for _, r := range safe {
			buf = append(buf, r...)
		}
		if sameFile {
			for _, r := range claims {
				buf = append(buf, r...)
			}
			wroteAll = true
		}
		if _, err := f.Write(buf); err != nil {
			return err
		}
		sizeAfter = sizeBefore + int64(len(buf))
		fi, err = f.Stat()
		return err
	})
	if err != nil {
		x.readOnly = true
		x.apply([]byte(strings.Join(safe, "") + strings.Join(claims, "")))
		return
	}
	if wroteAll && sameFile && (x.off == sizeBefore || (sizeBefore == 0 && x.off == 0)) {
		// Nobody wrote in between: apply directly.
		x.apply([]byte(strings.Join(safe, "") + strings.Join(claims, "")))
		x.file = fi
		x.off = sizeAfter
		return
	}
	if err := x.sync(); err != nil {
		x.readOnly = true
		x.apply([]byte(strings.Join(safe, "")))
	}
}

// replace atomically replaces the log with the given records and mirrors it.
func (x *index) replace(records []string) error {
	data := []byte(indexHeader() + strings.Join(records, ""))
	if !x.persistent() {
		x.reset()
		x.apply(data[len(indexHeader()):])
		return nil
	}
	err := x.locked(func() error { return writeFileAtomic(x.logPath(), data) })
	if err != nil {
		return fmt.Errorf("write alias index: %w", err)
	}
	x.reset()
	return x.sync()
}
