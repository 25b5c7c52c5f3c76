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
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/gofrs/flock"

	"github.com/git-uwf/git-uwf/internal/atomicfile"
	"github.com/git-uwf/git-uwf/internal/gitobj"
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
//	2: the same log, whose first line "uwf-alias-index 2 <tag>" names the
//	   sorted alias table "aliases-<tag>.tab" it extends ("-": none; see
//	   index_table.go). The log holds what was learned since the table was
//	   written; when it passes compactRecords records it is merged into a
//	   new table and starts over. Opening reads only the (short) log; a
//	   lookup searches the table (index_search.go). Reindex writes a table directly.
const formatVersion = 2

// compactRecords is the log length (records) past which the log is merged
// into a new table: it bounds what every process reads on first use.
const compactRecords = 4096

const (
	indexLogName  = "aliases.log"
	indexLockName = "aliases.lock"
)

// indexHeader is the log's first line up to the table tag.
func indexHeader() string { return "uwf-alias-index " + strconv.Itoa(formatVersion) + " " }

// headerLine is the log's first line for a log extending table tag ("-": none).
func headerLine(tag string) string { return indexHeader() + tag + "\n" }

const noTable = "-"

// index is the in-memory alias index; when dir is set it mirrors the log file
// in dir exactly (up to off). All methods are called with Store.mu held.
type index struct {
	dir string

	aliases   map[Alias][]gitobj.Hash // learned since the table
	commits   map[gitobj.Hash]struct{}
	tips      string
	loaded    bool
	tab       *table // the sorted table the log extends; nil if none
	records   int    // records applied from the log
	compactAt int    // compactRecords; tests lower it

	file     os.FileInfo // the log file the memory mirrors; nil if none yet
	off      int64       // bytes of file already applied
	readOnly bool        // writing failed once: keep the index in memory only

	// batching counts open batches (Store.BatchLearn): while it is above
	// zero, learned alias records are applied to memory and kept in
	// pending, and the next append (or the batch's end) writes them all.
	batching int
	pending  []entry
}

func newIndex(dir string) *index {
	x := &index{dir: dir, compactAt: compactRecords}
	x.reset()
	return x
}

func (x *index) reset() {
	x.tab.close()
	x.tab = nil
	x.records = 0
	x.aliases = map[Alias][]gitobj.Hash{}
	x.commits = map[gitobj.Hash]struct{}{}
	x.tips = ""
	x.file = nil
	x.off = 0
	for _, e := range x.pending { // learned in a batch, not written yet
		x.add(e.alias, e.oid)
	}
}

func (x *index) persistent() bool { return x.dir != "" && !x.readOnly }

func (x *index) logPath() string { return filepath.Join(x.dir, indexLogName) }

// add applies one alias record to memory.
func (x *index) add(a Alias, oid gitobj.Hash) bool {
	if slices.Contains(x.aliases[a], oid) {
		return false
	}
	x.aliases[a] = append(x.aliases[a], oid)
	return true
}

// lookup returns the oids indexed under a. A table that cannot be read
// counts as empty for the lookup (a miss refreshes from the refs).
func (x *index) lookup(a Alias) []gitobj.Hash {
	out := x.aliases[a]
	if x.tab != nil {
		more, _ := x.tab.lookup(a)
		for _, oid := range more {
			if !slices.Contains(out, oid) {
				out = append(slices.Clip(out), oid)
			}
		}
	}
	return out
}

func (x *index) has(a Alias, oid gitobj.Hash) bool { return slices.Contains(x.lookup(a), oid) }

// knownCommit reports whether commit c is fully indexed.
func (x *index) knownCommit(c gitobj.Hash) bool {
	if _, ok := x.commits[c]; ok {
		return true
	}
	return x.tab.hasCommit(c)
}

// withPrefix returns the distinct indexed aliases starting with p, sorted.
func (x *index) withPrefix(p string) []Alias {
	var out []Alias
	for a := range x.aliases {
		if strings.HasPrefix(string(a), p) {
			out = append(out, a)
		}
	}
	if x.tab != nil {
		more, _ := x.tab.withPrefix(p)
		out = append(out, more...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

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
	// Read what the file held when it was looked at (a record appended
	// since is read by the next sync), in one allocation.
	data := make([]byte, max(fi.Size()-x.off, 0))
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read alias index: %w", err)
	}
	data = data[:n]
	end := bytes.LastIndexByte(data, '\n') + 1 // only complete lines
	data = data[:end]
	if x.off == 0 && len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		tag, ok := strings.CutPrefix(string(data[:nl]), indexHeader())
		if !ok || (tag != noTable && len(tag) != 16) {
			return x.discard()
		}
		if tag != noTable {
			tab, err := openTable(x.dir, tag)
			if err != nil {
				return x.discard() // the log extends a table that is gone
			}
			x.tab, x.tips = tab, tab.tips
		}
		data = data[nl+1:]
		x.off = int64(nl + 1)
	}
	// data is this call's own buffer and is never written again: the
	// aliases applied keep substrings of it, with no copy of the log.
	x.apply(unsafe.String(unsafe.SliceData(data), len(data)))
	x.off += int64(len(data))
	x.file = fi
	return nil
}

// apply parses complete record lines into memory, skipping bad ones.
// Every process that opens a store pays it for the whole log (up to
// compactRecords records), and what it costs is mostly fresh memory: the
// aliases it keeps are substrings of s (which must not change), the
// checksums and oids are decoded in place, the map is sized once, and the
// oid lists of new aliases share one array.
func (x *index) apply(s string) {
	n := strings.Count(s, "\n")
	if len(x.aliases) == 0 && n > 8 {
		x.aliases = make(map[Alias][]gitobj.Hash, n)
	}
	oids := make([]gitobj.Hash, 0, n) // backing store of one-oid lists
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return
		}
		line := s[:i]
		s = s[i+1:]
		rec, ok := checkRecord(line)
		if !ok || len(rec) < 2 || rec[1] != ' ' {
			if ok {
				x.records++
			}
			continue
		}
		x.records++
		rest := rec[2:]
		switch rec[0] {
		case 'a':
			a, o, ok := strings.Cut(rest, " ")
			if !ok || !IsAlias(a) {
				continue
			}
			oid, ok := parseHash(o)
			if !ok {
				continue
			}
			if old, seen := x.aliases[Alias(a)]; seen {
				if !slices.Contains(old, oid) {
					x.aliases[Alias(a)] = append(old, oid)
				}
				continue
			}
			oids = append(oids, oid)
			k := len(oids) - 1
			x.aliases[Alias(a)] = oids[k : k+1 : k+1] // appending copies
		case 'c':
			if oid, ok := parseHash(rest); ok {
				x.commits[oid] = struct{}{}
			}
		case 't':
			x.tips = rest
		}
	}
}

// parseHash decodes a 40-digit lowercase hexadecimal object id.
func parseHash(s string) (gitobj.Hash, bool) {
	var h gitobj.Hash
	if len(s) != 2*len(h) {
		return h, false
	}
	for i := range h {
		hi, ok1 := hexDigit(s[2*i])
		lo, ok2 := hexDigit(s[2*i+1])
		if !ok1 || !ok2 {
			return gitobj.ZeroHash, false
		}
		h[i] = hi<<4 | lo
	}
	return h, true
}

// hexDigit decodes one lowercase hexadecimal digit.
func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// recordCRC is a record's check: the low 32 bits of its XXH64.
func recordCRC(rec string) uint32 { return uint32(xxhash.Sum64String(rec)) }

func record(rec string) string { return fmt.Sprintf("%s %08x\n", rec, recordCRC(rec)) }

// checkRecord returns line without its check, and whether the check (the
// last field: exactly eight lowercase hexadecimal digits) matches.
func checkRecord(line string) (string, bool) {
	i := strings.LastIndexByte(line, ' ')
	if i < 0 || len(line)-i-1 != 8 {
		return "", false
	}
	var crc uint32
	for _, c := range []byte(line[i+1:]) {
		d, ok := hexDigit(c)
		if !ok {
			return "", false
		}
		crc = crc<<4 | uint32(d)
	}
	if crc != recordCRC(line[:i]) {
		return "", false
	}
	return line[:i], true
}

func aliasRecord(a Alias, oid gitobj.Hash) string {
	return record("a " + string(a) + " " + oid.String())
}
func commitRecord(c gitobj.Hash) string { return record("c " + c.String()) }
func tipsRecord(d string) string        { return record("t " + d) }

// discard replaces a log file of another version, or one whose table is
// gone, with an empty one. What sync saw is re-checked under the index lock
// first: a compaction in another process replaces the log and removes the
// table the old log named, so a reader that opened the old log finds its
// table missing although the index is whole; it must read again, not wipe.
func (x *index) discard() error {
	x.reset()
	err := x.locked(func() error {
		if x.logIsSound() {
			return nil
		}
		return atomicfile.Write(x.logPath(), []byte(headerLine(noTable)), 0o644)
	})
	if err != nil {
		return fmt.Errorf("rebuild alias index: %w", err)
	}
	return x.sync()
}

// logIsSound reports whether the log file has this format's header and the
// table it names (if any) opens. Call it with the index lock held, when no
// compaction can be halfway.
func (x *index) logIsSound() bool {
	b, err := readPrefix(x.logPath(), len(indexHeader())+17)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false
	}
	line, _, ok := strings.Cut(string(b), "\n")
	if !ok {
		return false
	}
	tag, ok := strings.CutPrefix(line, indexHeader())
	switch {
	case !ok:
		return false
	case tag == noTable:
		return true
	case len(tag) != 16:
		return false
	}
	tab, err := openTable(x.dir, tag)
	if err != nil {
		return false
	}
	tab.close()
	return true
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

// learn records that blob oid has alias a: at once, in one locked append,
// or, inside a batch, in memory now and in the log with the batch's
// append.
func (x *index) learn(a Alias, oid gitobj.Hash) {
	if x.batching == 0 {
		x.appendRecords([]string{aliasRecord(a, oid)}, nil)
		return
	}
	if x.add(a, oid) {
		x.pending = append(x.pending, entry{a, oid})
	}
}

// flushPending writes the alias records learned in a batch, in one append.
func (x *index) flushPending() {
	if len(x.pending) > 0 {
		x.appendRecords(nil, nil)
	}
}

// appendRecords persists records and applies them to memory. safe are
// records that are valid in any log file (alias records); claims are records
// that state completeness (commit and tips records) and are only written to
// the file the memory currently mirrors. Records learned in a batch and not
// written yet go first, in the same write. Failing to write the file is not
// an error: the index then stays in memory only.
func (x *index) appendRecords(safe, claims []string) {
	if len(x.pending) > 0 {
		recs := make([]string, 0, len(x.pending)+len(safe))
		for _, e := range x.pending {
			recs = append(recs, aliasRecord(e.alias, e.oid))
		}
		safe = append(recs, safe...)
		x.pending = nil
	}
	if !x.persistent() {
		x.apply(strings.Join(safe, "") + strings.Join(claims, ""))
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
			buf = append(buf, headerLine(noTable)...)
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
		x.apply(strings.Join(safe, "") + strings.Join(claims, ""))
		return
	}
	if wroteAll && sameFile && (x.off == sizeBefore || (sizeBefore == 0 && x.off == 0)) {
		// Nobody wrote in between: apply directly.
		x.apply(strings.Join(safe, "") + strings.Join(claims, ""))
		x.file = fi
		x.off = sizeAfter
		x.compact()
		return
	}
	if err := x.sync(); err != nil {
		x.readOnly = true
		x.apply(strings.Join(safe, ""))
		return
	}
	x.compact()
}

// replaceAll atomically replaces the index with exactly these entries,
// commits and tips: a new table and an empty log extending it.
func (x *index) replaceAll(entries []entry, commits []gitobj.Hash, tips string) error {
	if !x.persistent() {
		x.reset()
		for _, e := range entries {
			x.add(e.alias, e.oid)
		}
		for _, c := range commits {
			x.commits[c] = struct{}{}
		}
		x.tips = tips
		return nil
	}
	err := x.locked(func() error { return x.writeTableAndLog(entries, commits, tips) })
	if err != nil {
		return fmt.Errorf("write alias index: %w", err)
	}
	x.reset()
	return x.sync()
}

// writeTableAndLog writes a table and a new log extending it; the index
// lock must be held.
func (x *index) writeTableAndLog(entries []entry, commits []gitobj.Hash, tips string) error {
	tag, err := writeTable(x.dir, entries, commits, tips)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(x.logPath(), []byte(headerLine(tag)), 0o644); err != nil {
		return err
	}
	removeOtherTables(x.dir, tag)
	return nil
}

// compact merges the log into a new table once it is long, so that opening
// the index stays cheap. Failing is harmless: the log keeps working.
func (x *index) compact() {
	if !x.persistent() || x.records <= x.compactAt {
		return
	}
	err := x.locked(func() error {
		if err := x.sync(); err != nil { // records other processes appended
			return err
		}
		if x.records <= x.compactAt {
			return nil // someone else compacted
		}
		var entries []entry
		var commits []gitobj.Hash
		if x.tab != nil {
			var err error
			if entries, commits, err = x.tab.readAll(); err != nil {
				return err
			}
		}
		for a, oids := range x.aliases {
			for _, oid := range oids {
				entries = append(entries, entry{a, oid})
			}
		}
		for c := range x.commits {
			commits = append(commits, c)
		}
		return x.writeTableAndLog(entries, commits, x.tips)
	})
	if err == nil {
		x.reset()
		err = x.sync()
	}
	if err != nil {
		x.readOnly = true
	}
}

// forEach calls fn for every indexed alias (possibly more than once).
func (x *index) forEach(fn func(Alias)) {
	for a := range x.aliases {
		fn(a)
	}
	if x.tab == nil {
		return
	}
	for i := 0; i < x.tab.nAliases; i++ {
		a, _, err := x.tab.aliasAt(i)
		if err != nil {
			return
		}
		fn(a)
	}
}
