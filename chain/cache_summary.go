package chain

import (
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/git-uwf/git-uwf/internal/atomicfile"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// Read-path cache (derived; deleting it loses nothing): each thread's
// `thread list` Summary, in uwf/cache/summaries. Invalidated by a change of
// the thread's head commit or attempts tip, checked against the refs on
// every listing.

// The summary cache makes `thread list` cost O(changed threads) instead of
// O(threads) object reads. It lives in $GIT_COMMON_DIR/uwf/cache/ and holds
// derived data only: each thread's Summary (without the "running" overlay,
// which always comes from the lock files) keyed by the thread's head commit
// and the tip of its attempts ref. Both are read from git on every listing,
// so an entry is used only when both still match: a plain git fetch,
// update-ref or a new step changes the key and the entry is recomputed;
// git gc changes no commit id. Deleting the folder loses nothing.
//
// The file is rewritten atomically (temporary file + rename) whenever a
// listing computed something new; concurrent writers each write a complete,
// valid file (every entry is keyed by immutable commits), so the last one
// simply wins.
//
// Reading it is on the path of every `thread list`, so the format is made
// to be read without copying: one line per thread, newest first (the order
// of the listing, so that it can be matched against the refs in one pass),
// tab-separated fields that are substrings of the file unless they hold an
// escaped character, the key in hex as git prints it (compared with the
// ref values as strings, never decoded), and only the fields of a line
// whose key matches are parsed. A file of another version reads as empty
// and is rebuilt.

const (
	summaryCacheDir  = "cache"
	summaryCacheName = "summaries"
	// 4: the start commit and its branch (3: unquoted fields, hex keys,
	// newest first; 2: strconv-quoted fields, CRC-32 line checks; 1:
	// FNV-1a).
	summaryCacheHead = "uwf-summary-cache 4\n"
	summaryFields    = 15
	// keyFields are the fields parseCacheLine splits out: the thread, its
	// key, its start commit and branch.
	keyFields = 5
)

// cacheKey is what a cached summary was derived from.
type cacheKey struct {
	head, attempts gitobj.Hash
}

// hex returns the key as the cache file and the refs spell it: the head
// commit and the attempts tip in hex, "" for no attempts ref.
func (k cacheKey) hex() (head, attempts string) {
	head = k.head.String()
	if !k.attempts.IsZero() {
		attempts = k.attempts.String()
	}
	return head, attempts
}

type cachedSummary struct {
	key cacheKey
	sum Summary
}

// cacheLine is one checked line of the summary cache. Only its thread and
// key are split out on load; the summary is parsed when the key matches.
type cacheLine struct {
	id             ThreadID
	head, attempts string // hex; attempts "" when there was no attempts ref
	start          string // hex, the start commit
	rawBranch      string // escaped
	rest           string // the fields after the branch, without the check
	line           string // the whole line with its newline, for rewriting
}

// branch is the line's Branch ("" when it cannot be read).
func (l cacheLine) branch() string {
	b, _ := unescapeField(l.rawBranch)
	return b
}

// summaryCache is the loaded cache file.
type summaryCache struct {
	lines []cacheLine
	// newestFirst is true when the ids strictly decrease, as written:
	// lines can then be matched with a listing by merging.
	newestFirst bool
}

func (r *Repo) summaryCachePath() string {
	return filepath.Join(r.UwfDir(), summaryCacheDir, summaryCacheName)
}

// loadSummaries reads the cache; a missing, foreign or damaged file reads as
// empty (damaged lines are skipped).
func (r *Repo) loadSummaries() summaryCache {
	raw, err := os.ReadFile(r.summaryCachePath())
	if err != nil {
		return summaryCache{}
	}
	return parseSummaryCache(raw)
}

// parseSummaryCache parses a cache file. The lines it returns share
// raw's bytes: raw must not be written afterwards.
func parseSummaryCache(raw []byte) summaryCache {
	if len(raw) < len(summaryCacheHead) || string(raw[:len(summaryCacheHead)]) != summaryCacheHead {
		return summaryCache{}
	}
	// Every field is a substring of data, which shares raw's bytes: raw is
	// never written after the read (the line checks only read it), so no
	// copy of the file is needed.
	data := unsafe.String(unsafe.SliceData(raw), len(raw))
	c := summaryCache{lines: make([]cacheLine, 0, len(raw)/160), newestFirst: true}
	for i := len(summaryCacheHead); i < len(data); {
		n := strings.IndexByte(data[i:], '\n')
		if n < 0 {
			break // torn tail
		}
		l, ok := parseCacheLine(data[i:i+n+1], raw[i:i+n])
		i += n + 1
		if !ok {
			continue
		}
		if k := len(c.lines); k > 0 && c.lines[k-1].id <= l.id {
			c.newestFirst = false
		}
		c.lines = append(c.lines, l)
	}
	return c
}

// Line format (tab-separated): id head attempts startCommit branch status
// currentRole suspendedRole workflow workflowHash headAlias updatedUnixNano
// prompt error crc. head, attempts and startCommit are hex ("" for no
// attempts); the roles are
// "-" when absent and "=" before the value otherwise; text fields are
// escaped with escapeField; crc is the CRC-32 of everything before its tab,
// in 8 hex digits.
func formatSummaryLine(c cachedSummary) string {
	s := c.sum
	// One buffer, made into the line without a copy, of the line's length
	// unless a field needs escapes: a cold listing formats a line per
	// thread. The 48 bytes are the separators, the time, the '=' of the
	// roles, the checksum and the newline.
	optLen := func(p *string) int {
		if p == nil {
			return 1
		}
		return len(*p)
	}
	n := 48 + len(s.Thread) + 2*len(c.key.head)*2 + len(s.StartCommit) + len(s.Branch) + len(s.Status) +
		optLen(s.CurrentRole) + optLen(s.SuspendedRole) + len(s.Workflow) + len(s.WorkflowHash) + len(s.Head) +
		len(s.Prompt) + len(s.Error)
	b := make([]byte, 0, n)
	field := func(v string) {
		b = append(b, v...)
		b = append(b, '\t')
	}
	opt := func(p *string) {
		if p == nil {
			field("-")
			return
		}
		b = append(b, '=')
		field(escapeField(*p))
	}
	field(string(s.Thread))
	// The key's ids in hex, as cacheKey.hex gives them, without a string
	// each.
	b = append(hex.AppendEncode(b, c.key.head[:]), '\t')
	if !c.key.attempts.IsZero() {
		b = hex.AppendEncode(b, c.key.attempts[:])
	}
	b = append(b, '\t')
	field(s.StartCommit)
	field(escapeField(s.Branch))
	field(string(s.Status))
	opt(s.CurrentRole)
	opt(s.SuspendedRole)
	field(escapeField(s.Workflow))
	field(escapeField(s.WorkflowHash))
	field(escapeField(s.Head))
	b = strconv.AppendInt(b, s.UpdatedAt.UnixNano(), 10)
	b = append(b, '\t')
	field(escapeField(s.Prompt))
	b = append(b, escapeField(s.Error)...)
	crc := crc32.ChecksumIEEE(b)
	b = append(b, '\t')
	b = appendCRCHex(b, crc)
	b = append(b, '\n')
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func crcHex(h uint32) string { return string(appendCRCHex(nil, h)) }

// appendCRCHex appends h as 8 lower-case hex digits.
func appendCRCHex(b []byte, h uint32) []byte {
	const digits = "0123456789abcdef"
	var d [8]byte
	for i := 7; i >= 0; i-- {
		d[i] = digits[h&0xf]
		h >>= 4
	}
	return append(b, d[:]...)
}

// parseCacheLine checks line (with its newline; raw is the same bytes
// without it) and splits out its thread and key.
func parseCacheLine(line string, raw []byte) (cacheLine, bool) {
	rec := line[:len(line)-1]
	t := strings.LastIndexByte(rec, '\t')
	if t < 0 || len(rec)-t-1 != 8 || !crcMatches(crc32.ChecksumIEEE(raw[:t]), rec[t+1:]) {
		return cacheLine{}, false
	}
	rec = rec[:t]
	var f [keyFields]string
	rest := rec
	for i := range f {
		j := strings.IndexByte(rest, '\t')
		if j < 0 {
			return cacheLine{}, false
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	if len(f[0]) != 26 || len(f[1]) != 40 || (f[2] != "" && len(f[2]) != 40) || len(f[3]) != 40 {
		return cacheLine{}, false
	}
	return cacheLine{id: ThreadID(f[0]), head: f[1], attempts: f[2], start: f[3], rawBranch: f[4], rest: rest, line: line}, true
}

func crcMatches(h uint32, hex string) bool {
	const digits = "0123456789abcdef"
	for i := 7; i >= 0; i-- {
		if hex[i] != digits[h&0xf] {
			return false
		}
		h >>= 4
	}
	return true
}

// summary parses the fields of a line after its key into s; created is
// the thread's CreatedAt (from its id). roles holds the values CurrentRole
// and SuspendedRole point to; it must have room for two more (it is
// appended to without reallocating, so that earlier pointers stay valid).
func (l cacheLine) summary(s *Summary, created time.Time, roles *[]string) bool {
	var f [summaryFields - keyFields - 1]string
	rest := l.rest
	for i := range f {
		j := strings.IndexByte(rest, '\t')
		if (j < 0) != (i == len(f)-1) {
			return false // too few or too many fields
		}
		if j < 0 {
			f[i] = rest
			break
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	st, ok := knownStatus(f[0])
	if !ok {
		return false
	}
	nanos, err := strconv.ParseInt(f[6], 10, 64)
	if err != nil {
		return false
	}
	opt := func(v string) (*string, bool) {
		if v == "-" {
			return nil, true
		}
		v, ok := strings.CutPrefix(v, "=")
		if !ok || len(*roles) == cap(*roles) {
			return nil, false
		}
		if v, ok = unescapeField(v); !ok {
			return nil, false
		}
		*roles = append(*roles, v)
		return &(*roles)[len(*roles)-1], true
	}
	cur, ok1 := opt(f[1])
	susp, ok2 := opt(f[2])
	workflow, ok3 := unescapeField(f[3])
	workflowHash, ok4 := unescapeField(f[4])
	head, ok5 := unescapeField(f[5])
	prompt, ok6 := unescapeField(f[7])
	msg, ok7 := unescapeField(f[8])
	branch, ok8 := unescapeField(l.rawBranch)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8) {
		return false
	}
	*s = Summary{Thread: l.id, Workflow: workflow, WorkflowHash: workflowHash, Head: head, HeadCommit: l.head,
		Status: st, CurrentRole: cur, SuspendedRole: susp, Prompt: prompt, CreatedAt: created,
		UpdatedAt: time.Unix(0, nanos).UTC(), Error: msg, Branch: branch, StartCommit: l.start}
	return true
}

// knownStatus is ParseStatus without the error: the cache holds only the
// states a summary can have.
func knownStatus(s string) (Status, bool) {
	switch st := Status(s); st {
	case StatusIdle, StatusSuspended, StatusCompleted, StatusCancelled, StatusFailed:
		return st, true
	}
	return "", false
}

// escapeField escapes the characters that delimit fields and lines, and
// the escape character itself.
func escapeField(s string) string {
	if !strings.ContainsAny(s, "\\\t\n\r") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescapeField undoes escapeField; without a backslash (the common case)
// it returns s itself.
func unescapeField(s string) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i == len(s) {
			return "", false
		}
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", false
		}
	}
	return b.String(), true
}

// storeSummaries replaces the cache with lines (each a whole line, as
// formatSummaryLine or the loaded file has it; "" lines are skipped), in
// listing order. The lines are written as they are, not gathered into one
// buffer first. Failing to write is not an error: the cache is an
// optimisation.
func (r *Repo) storeSummaries(lines []string) {
	if err := os.MkdirAll(filepath.Dir(r.summaryCachePath()), 0o755); err != nil {
		return
	}
	// A cache that cannot be written only costs speed.
	_ = atomicfile.WriteFrom(r.summaryCachePath(), 0o644, func(w io.Writer) error {
		if _, err := io.WriteString(w, summaryCacheHead); err != nil {
			return err
		}
		for _, l := range lines {
			if _, err := io.WriteString(w, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// lockedThreads lists the threads that have a lock file: only those can be
// running, so only those are probed.
func (r *Repo) lockedThreads() map[ThreadID]bool {
	entries, err := os.ReadDir(filepath.Join(r.UwfDir(), "locks"))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return map[ThreadID]bool{}
	}
	out := make(map[ThreadID]bool, len(entries))
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".lock"); ok {
			out[ThreadID(name)] = true
		}
	}
	return out
}
