package chain

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
)

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

const (
	summaryCacheDir  = "cache"
	summaryCacheName = "summaries"
	summaryCacheHead = "uwf-summary-cache 2\n" // 2: CRC-32 line checks (1: FNV-1a)
)

// cacheKey is what a cached summary was derived from.
type cacheKey struct {
	head, attempts plumbing.Hash
}

type cachedSummary struct {
	key cacheKey
	sum Summary
}

func (r *Repo) summaryCachePath() string {
	return filepath.Join(r.UwfDir(), summaryCacheDir, summaryCacheName)
}

// loadSummaries reads the cache; a missing, foreign or damaged file reads as
// empty (damaged lines are skipped).
func (r *Repo) loadSummaries() map[ThreadID]cachedSummary {
	raw, err := os.ReadFile(r.summaryCachePath())
	if err != nil || !bytes.HasPrefix(raw, []byte(summaryCacheHead)) {
		return map[ThreadID]cachedSummary{}
	}
	raw = raw[len(summaryCacheHead):]
	out := make(map[ThreadID]cachedSummary, bytes.Count(raw, []byte{'\n'}))
	data := string(raw) // one copy; every parsed field is a substring of it
	for len(data) > 0 {
		i := strings.IndexByte(data, '\n')
		if i < 0 {
			break // torn tail
		}
		line := data[:i]
		data = data[i+1:]
		if id, c, ok := parseSummaryLine(line); ok {
			out[id] = c
		}
	}
	return out
}

// Line format (tab-separated): id head attempts status currentRole
// suspendedRole workflow workflowHash headAlias updatedUnixNano prompt error,
// the last five quoted with strconv.Quote, and " <crc>" at the end.
func formatSummaryLine(c cachedSummary) string {
	s := c.sum
	opt := func(p *string) string {
		if p == nil {
			return "-"
		}
		return strconv.Quote(*p)
	}
	rec := strings.Join([]string{
		string(s.Thread), c.key.head.String(), c.key.attempts.String(), string(s.Status),
		opt(s.CurrentRole), opt(s.SuspendedRole), strconv.Quote(s.Workflow), strconv.Quote(s.WorkflowHash),
		strconv.Quote(s.Head), strconv.FormatInt(s.UpdatedAt.UnixNano(), 10), strconv.Quote(s.Prompt), strconv.Quote(s.Error),
	}, "\t")
	return rec + " " + lineCRC(rec) + "\n"
}

func lineCRC(rec string) string {
	// CRC-32 (IEEE, hardware-assisted): only guards against torn or edited
	// lines, and is cheap enough to check on every line of every listing.
	h := crc32.ChecksumIEEE([]byte(rec))
	const digits = "0123456789abcdef"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[h&0xf]
		h >>= 4
	}
	return string(b[:])
}

func parseSummaryLine(line string) (ThreadID, cachedSummary, bool) {
	sp := strings.LastIndexByte(line, ' ')
	if sp < 0 || line[sp+1:] != lineCRC(line[:sp]) {
		return "", cachedSummary{}, false
	}
	var f [12]string
	rest := line[:sp]
	for i := range f {
		j := strings.IndexByte(rest, '\t')
		if (j < 0) != (i == len(f)-1) {
			return "", cachedSummary{}, false // too few or too many fields
		}
		if j < 0 {
			f[i] = rest
			break
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	id, err := ParseThreadID(f[0])
	if err != nil || string(id) != f[0] || !plumbing.IsHash(f[1]) || !plumbing.IsHash(f[2]) {
		return "", cachedSummary{}, false
	}
	var c cachedSummary
	c.key = cacheKey{plumbing.NewHash(f[1]), plumbing.NewHash(f[2])}
	st, err := ParseStatus(f[3])
	if err != nil {
		return "", cachedSummary{}, false
	}
	ok := true
	unq := func(s string) string {
		v, good := unquote(s)
		ok = ok && good
		return v
	}
	opt := func(s string) *string {
		if s == "-" {
			return nil
		}
		v := unq(s)
		return &v
	}
	nanos, err := strconv.ParseInt(f[9], 10, 64)
	if err != nil {
		return "", cachedSummary{}, false
	}
	c.sum = Summary{Thread: id, Status: st, CurrentRole: opt(f[4]), SuspendedRole: opt(f[5]),
		Workflow: unq(f[6]), WorkflowHash: unq(f[7]), Head: unq(f[8]), HeadCommit: c.key.head.String(),
		UpdatedAt: time.Unix(0, nanos).UTC(), Prompt: unq(f[10]), Error: unq(f[11]), CreatedAt: id.Time().UTC()}
	return id, c, ok
}

// unquote is strconv.Unquote for a double-quoted string, without the copy
// when nothing in it is escaped (the common case).
func unquote(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		in := s[1 : len(s)-1]
		if strings.IndexByte(in, '\\') < 0 && strings.IndexByte(in, '"') < 0 && utf8.ValidString(in) {
			return in, true
		}
	}
	v, err := strconv.Unquote(s)
	return v, err == nil
}

// storeSummaries replaces the cache with entries. Failing to write is not
// an error: the cache is an optimisation.
func (r *Repo) storeSummaries(entries []cachedSummary) {
	var b bytes.Buffer
	b.WriteString(summaryCacheHead)
	for _, c := range entries {
		b.WriteString(formatSummaryLine(c))
	}
	if err := os.MkdirAll(filepath.Dir(r.summaryCachePath()), 0o755); err != nil {
		return
	}
	// A cache that cannot be written only costs speed.
	_ = writeFileAtomic(r.summaryCachePath(), b.Bytes())
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
