package gitrepo

import (
	"slices"
	"strings"
	"sync/atomic"
)

// packedRefs is the content of a packed-refs file:
//
//	# pack-refs with: peeled fully-peeled sorted
//	<oid> SP <refname> LF
//	^<peeled oid> LF        (after an annotated tag)
//
// The header is optional; without its "sorted" trait the records are in
// no particular order and are sorted here, once. Records are parsed only
// as they are visited; a malformed one sets malformed and stops the scan
// (git refuses such a file, so the caller leaves the question to git).
// A packedRefs kept by RefFiles is read by several goroutines at once,
// which is why malformed is atomic; nothing else in it changes.
//
// data may lie in a read-only mapping of the file (mapped; see
// RefFiles.packedRefs) that is released when the packedRefs is no longer
// reachable: then the strings lookup, scan and matches (unless asked for
// them in place) hand out are copies, and visit's, Each's and AnyPacked's
// are valid during the call only, while the caller keeps the packedRefs
// reachable.
type packedRefs struct {
	data      string // from the first record on
	sorted    bool
	mapped    bool
	pages     []byte // the mapping, when mapped
	malformed atomic.Bool
}

const packedHeader = "# pack-refs with:"

func newPackedRefs(data string) *packedRefs {
	p := &packedRefs{data: data}
	if strings.HasPrefix(data, packedHeader) {
		i := strings.IndexByte(data, '\n')
		if i < 0 {
			p.malformed.Store(true)
			p.data = ""
			return p
		}
		traits := " " + data[len(packedHeader):i] + " "
		p.sorted = strings.Contains(traits, " sorted ")
		p.data = data[i+1:]
	}
	if !p.sorted {
		p.sortRecords()
	}
	return p
}

// record parses the record at offset i: its oid and name, and the offset
// of the next record. ok is false for a malformed record.
func (p *packedRefs) record(i int) (oid, name string, next int, ok bool) {
	line, next, ok := p.line(i)
	if !ok {
		return "", "", 0, false
	}
	sp := 40 // SHA-1, else SHA-256
	if len(line) <= sp || line[sp] != ' ' {
		sp = 64
	}
	if len(line) <= sp+1 || line[sp] != ' ' || !allLowerHex(line[:sp]) {
		return "", "", 0, false
	}
	oid, name = line[:sp], line[sp+1:]
	if next < len(p.data) && p.data[next] == '^' {
		peeled, after, ok := p.line(next)
		if !ok || !validOIDLen(len(peeled)-1) || !allLowerHex(peeled[1:]) {
			return "", "", 0, false
		}
		next = after
	}
	return oid, name, next, true
}

// line returns the line at offset i without its newline, and the offset
// after it. A line must end in a newline.
func (p *packedRefs) line(i int) (string, int, bool) {
	j := strings.IndexByte(p.data[i:], '\n')
	if j < 0 {
		return "", 0, false
	}
	return p.data[i : i+j], i + j + 1, true
}

// scan calls fn for each record from offset start on, in name order, until
// fn returns false or the data ends. A malformed record sets p.malformed.
func (p *packedRefs) scan(start int, fn func(oid, name string) bool) {
	if !p.mapped {
		p.visit(start, fn)
		return
	}
	p.visit(start, func(oid, name string) bool { return fn(strings.Clone(oid), strings.Clone(name)) })
}

// visit is scan without the copies: oid and name may lie in the mapping,
// so they are valid during the call only, and the caller keeps p
// reachable until visit returns.
func (p *packedRefs) visit(start int, fn func(oid, name string) bool) {
	for i := start; i < len(p.data) && !p.malformed.Load(); {
		oid, name, next, ok := p.record(i)
		if !ok {
			p.malformed.Store(true)
			return
		}
		if !fn(oid, name) {
			return
		}
		i = next
	}
}

// matches calls fn for each record that pattern matches (as ReadRefs
// matches), from offset start, the first record not before base (pattern
// without a final slash, a valid ref name), to the end of the pattern's
// range: with copies of oid and name as scan hands them out (made once a
// record matches), or in place as visit does. bad reports a name git
// would reject, which ends the walk (the listing is then left to git).
func (p *packedRefs) matches(start int, base, pattern string, inPlace bool, fn func(oid, name string)) (bad bool) {
	clone := p.mapped && !inPlace
	p.visit(start, func(oid, name string) bool {
		switch {
		case !strings.HasPrefix(name, base):
			return false // past the range: records are in name order
		case !matchPattern(name, pattern):
			return true
		case len(name) > len(base) && !validRefPath(name[len(base)+1:]):
			// The name is base or base/rest, and base is valid.
			bad = true
			return false
		}
		if clone {
			oid, name = strings.Clone(oid), strings.Clone(name)
		}
		fn(oid, name)
		return true
	})
	return bad
}

// lowerBound returns the offset of the first record whose name is not
// less than key (len(data) if none), or -1 when the file is malformed.
// It bisects the byte range as git does: a midpoint is moved back to the
// start of its record (skipping back over a peeled line).
func (p *packedRefs) lowerBound(key string) int {
	if p.malformed.Load() {
		return -1
	}
	lo, hi := 0, len(p.data)
	for lo < hi {
		mid := lo + (hi-lo)/2
		rec := strings.LastIndexByte(p.data[:mid], '\n') + 1
		if rec < len(p.data) && p.data[rec] == '^' {
			if rec == lo {
				p.malformed.Store(true) // a peeled line with no record before it
				return -1
			}
			rec = strings.LastIndexByte(p.data[:rec-1], '\n') + 1
		}
		_, name, next, ok := p.record(rec)
		if !ok {
			p.malformed.Store(true)
			return -1
		}
		if name < key {
			lo = next
		} else {
			hi = rec
		}
	}
	return lo
}

// lookup returns the oid of the ref named name, "" when there is none.
// ok is false when the file is malformed.
func (p *packedRefs) lookup(name string) (oid string, ok bool) {
	i := p.lowerBound(name)
	if i < 0 {
		return "", false
	}
	if i < len(p.data) {
		o, n, _, ok := p.record(i)
		if !ok {
			p.malformed.Store(true)
			return "", false
		}
		if n == name {
			if !validRefName(n) {
				return "", false
			}
			if p.mapped {
				o = strings.Clone(o)
			}
			return o, true
		}
	}
	return "", true
}

// sortRecords rewrites an unsorted file's records in name order (peeled
// lines dropped), so that every lookup can bisect.
func (p *packedRefs) sortRecords() {
	type rec struct{ oid, name string }
	var recs []rec
	for i := 0; i < len(p.data); {
		oid, name, next, ok := p.record(i)
		if !ok {
			p.malformed.Store(true)
			p.data = ""
			return
		}
		recs = append(recs, rec{oid, name})
		i = next
	}
	byName := func(a, b rec) int { return strings.Compare(a.name, b.name) }
	inOrder := slices.IsSortedFunc(recs, byName)
	if !inOrder {
		slices.SortStableFunc(recs, byName)
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].name == recs[i-1].name {
			p.malformed.Store(true) // git refuses duplicates too
			p.data = ""
			return
		}
	}
	p.sorted = true
	if inOrder {
		return
	}
	var b strings.Builder
	b.Grow(len(p.data))
	for _, r := range recs {
		b.WriteString(r.oid)
		b.WriteByte(' ')
		b.WriteString(r.name)
		b.WriteByte('\n')
	}
	p.data = b.String()
}

func allLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !lowerHex[s[i]] {
			return false
		}
	}
	return true
}

var lowerHex = func() (t [256]bool) {
	for _, c := range "0123456789abcdef" {
		t[c] = true
	}
	return t
}()
