package objects

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/git-uwf/git-uwf/internal/atomicfile"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/mmapfile"
)

// An alias table is the sorted, immutable part of the alias index (format
// 2). It is written whole (temporary file + rename) by Reindex and by
// compaction of the log, and named by a tag that the log's header line
// refers to, so the log always extends exactly one table. A lookup searches
// the memory-mapped table by interpolation (index_search.go: about four
// probes at 100,000 aliases), or binary searches it with a few reads when
// it cannot be mapped; opening a store reads none of it.
//
// Layout: the 8-byte magic "uwfatab2", the tag (u64), the number of alias
// records and of commits (u32 each), the 16-character tips digest; then the
// alias records (13-byte alias, 20-byte oid) sorted by alias then oid; then
// the commits (20 bytes each) sorted; then the XXH64 of everything before
// (checked when the table is read whole, for compaction).
const (
	tableMagic     = "uwfatab2"
	tableHeaderLen = 8 + 8 + 4 + 4 + 16
	aliasRecLen    = AliasLen + 20
)

type table struct {
	f        *os.File
	mapped   []byte // the whole file mapped into memory, or nil (then f.ReadAt)
	tag      string
	nAliases int
	nCommits int
	tips     string
}

func tableName(tag string) string { return "aliases-" + tag + ".tab" }

// openTable opens the table with the given tag in dir.
func openTable(dir, tag string) (*table, error) {
	f, err := os.Open(filepath.Join(dir, tableName(tag)))
	if err != nil {
		return nil, err
	}
	h := make([]byte, tableHeaderLen)
	if _, err := f.ReadAt(h, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("alias table %s: %w", tag, err)
	}
	t := &table{f: f, tag: tag,
		nAliases: int(binary.BigEndian.Uint32(h[16:20])), nCommits: int(binary.BigEndian.Uint32(h[20:24])),
		tips: strings.TrimRight(string(h[24:40]), " ")}
	if string(h[:8]) != tableMagic || fmt.Sprintf("%016x", binary.BigEndian.Uint64(h[8:16])) != tag {
		f.Close()
		return nil, fmt.Errorf("alias table %s: bad header", tag)
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != t.size() {
		f.Close()
		return nil, fmt.Errorf("alias table %s: truncated", tag)
	}
	// A table is never written again once renamed into place, so its
	// mapping cannot change under a reader; without one, reads go through
	// ReadAt.
	t.mapped = mmapfile.Map(f, t.size())
	return t, nil
}

func (t *table) size() int64 {
	return int64(tableHeaderLen + t.nAliases*aliasRecLen + t.nCommits*20 + 8)
}

func (t *table) close() {
	if t != nil {
		mmapfile.Unmap(t.mapped)
		t.mapped = nil
		t.f.Close()
	}
}

// readAt fills b from offset off of the table.
func (t *table) readAt(b []byte, off int64) error {
	if t.mapped != nil {
		if off < 0 || off+int64(len(b)) > int64(len(t.mapped)) {
			return errors.New("alias table: read past the end")
		}
		copy(b, t.mapped[off:])
		return nil
	}
	_, err := t.f.ReadAt(b, off)
	return err
}

func (t *table) aliasAt(i int) (Alias, gitobj.Hash, error) {
	var b [aliasRecLen]byte
	if err := t.readAt(b[:], int64(tableHeaderLen+i*aliasRecLen)); err != nil {
		return "", gitobj.ZeroHash, err
	}
	var h gitobj.Hash
	copy(h[:], b[AliasLen:])
	return Alias(b[:AliasLen]), h, nil
}

// search returns the first alias record index i with alias(i) >= a.
func (t *table) search(a string) (int, error) {
	if t.mapped != nil {
		return t.searchMapped(a), nil
	}
	var ferr error
	i := sort.Search(t.nAliases, func(i int) bool {
		got, _, err := t.aliasAt(i)
		if err != nil {
			ferr = err
			return true
		}
		return string(got) >= a
	})
	return i, ferr
}

// lookup returns the oids recorded for a.
func (t *table) lookup(a Alias) ([]gitobj.Hash, error) {
	if t == nil {
		return nil, nil
	}
	i, err := t.search(string(a))
	var out []gitobj.Hash
	for ; err == nil && i < t.nAliases; i++ {
		got, oid, rerr := t.aliasAt(i)
		if rerr != nil {
			return out, rerr
		}
		if got != a {
			break
		}
		out = append(out, oid)
	}
	return out, err
}

// withPrefix returns the distinct aliases starting with p.
func (t *table) withPrefix(p string) ([]Alias, error) {
	if t == nil {
		return nil, nil
	}
	i, err := t.search(p)
	var out []Alias
	for ; err == nil && i < t.nAliases; i++ {
		got, _, rerr := t.aliasAt(i)
		if rerr != nil {
			return out, rerr
		}
		if !strings.HasPrefix(string(got), p) {
			break
		}
		if len(out) == 0 || out[len(out)-1] != got {
			out = append(out, got)
		}
	}
	return out, err
}

// hasCommit reports whether commit c was fully indexed into the table.
func (t *table) hasCommit(c gitobj.Hash) bool {
	if t == nil {
		return false
	}
	base := int64(tableHeaderLen + t.nAliases*aliasRecLen)
	var b [20]byte
	i := sort.Search(t.nCommits, func(i int) bool {
		if err := t.readAt(b[:], base+int64(i)*20); err != nil {
			return true
		}
		return bytes.Compare(b[:], c[:]) >= 0
	})
	if i >= t.nCommits {
		return false
	}
	if err := t.readAt(b[:], base+int64(i)*20); err != nil {
		return false
	}
	return bytes.Equal(b[:], c[:])
}

// readAll reads and checks the whole table.
func (t *table) readAll() ([]entry, []gitobj.Hash, error) {
	data := make([]byte, t.size())
	if err := t.readAt(data, 0); err != nil {
		return nil, nil, err
	}
	body := data[:len(data)-8]
	if binary.BigEndian.Uint64(data[len(data)-8:]) != xxhash.Sum64(body) {
		return nil, nil, errors.New("alias table checksum mismatch")
	}
	entries := make([]entry, t.nAliases)
	off := tableHeaderLen
	for i := range entries {
		entries[i].alias = Alias(body[off : off+AliasLen])
		copy(entries[i].oid[:], body[off+AliasLen:off+aliasRecLen])
		off += aliasRecLen
	}
	commits := make([]gitobj.Hash, t.nCommits)
	for i := range commits {
		copy(commits[i][:], body[off:off+20])
		off += 20
	}
	return entries, commits, nil
}

// writeTable writes a new table in dir and returns its tag.
func writeTable(dir string, entries []entry, commits []gitobj.Hash, tips string) (string, error) {
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b entry) int {
		if c := strings.Compare(string(a.alias), string(b.alias)); c != 0 {
			return c
		}
		return bytes.Compare(a.oid[:], b.oid[:])
	})
	entries = slices.Compact(entries)
	commits = slices.Clone(commits)
	slices.SortFunc(commits, func(a, b gitobj.Hash) int { return bytes.Compare(a[:], b[:]) })
	commits = slices.Compact(commits)

	d := xxhash.New()
	for _, e := range entries {
		d.WriteString(string(e.alias))
		d.Write(e.oid[:])
	}
	for _, c := range commits {
		d.Write(c[:])
	}
	d.WriteString(tips)
	tagN := d.Sum64()
	tag := fmt.Sprintf("%016x", tagN)

	buf := make([]byte, 0, tableHeaderLen+len(entries)*aliasRecLen+len(commits)*20+8)
	buf = append(buf, tableMagic...)
	buf = binary.BigEndian.AppendUint64(buf, tagN)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(entries)))
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(commits)))
	buf = append(buf, fmt.Sprintf("%-16.16s", tips)...)
	for _, e := range entries {
		buf = append(buf, e.alias...)
		buf = append(buf, e.oid[:]...)
	}
	for _, c := range commits {
		buf = append(buf, c[:]...)
	}
	buf = binary.BigEndian.AppendUint64(buf, xxhash.Sum64(buf))
	if err := atomicfile.Write(filepath.Join(dir, tableName(tag)), buf, 0o644); err != nil {
		return "", err
	}
	return tag, nil
}

// removeOtherTables deletes the tables of dir other than keep. Processes
// that still read an old one keep their open file.
func removeOtherTables(dir, keep string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "aliases-*.tab"))
	for _, m := range matches {
		if filepath.Base(m) != tableName(keep) {
			os.Remove(m)
		}
	}
}
