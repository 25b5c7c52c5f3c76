package chain

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/git-uwf/git-uwf/internal/atomicfile"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// Read-path cache (derived; deleting it loses nothing): decoded thread
// commits, in uwf/cache/entries/<start-oid>. Nothing invalidates a record:
// it is keyed by an immutable commit oid. A damaged line or a file of
// another format version is read from git again.

// The entry cache makes a chain walk (Chain, and so `thread steps`,
// `thread read`, …) cost one file read instead of about five object reads
// per step. A commit's content never changes, so what Entry decodes from a
// commit (parent, tree, time, node), the payloads of its step's output
// node and (up to maxCachedBody) body node, and the workflow/ subtree and
// start blob its tree pins can never go stale: records are keyed by the
// commit oid and verified against nothing mutable.
//
// Records live in $GIT_COMMON_DIR/uwf/cache/entries/<start-oid>, one file
// per start node, so a thread and its forks (which share its history)
// share a file and a walk reads only the file of its own thread. A file is
// a header line naming entryCacheVersion, then one line per commit
// (tab-separated fields, canonical JSON last, a CRC-32 at the end). A line
// that is torn or fails its checksum is skipped, and the commit is read
// from git again. A file with another header (an older format) is
// rewritten. New records are added with one append per chain walk, under
// an flock on entries.lock, so concurrent writers never interleave.
// Deleting the folder loses nothing.

const (
	entryCacheVersion = 4

	// maxCachedBody is the largest body payload a record keeps; a larger
	// body is read from git when it is shown, so that a walk of a long
	// thread never reads more than a few kilobytes per step.
	maxCachedBody  = 4 << 10
	entryCacheDir  = "entries"
	entryCacheLock = "entries.lock"
)

func entryCacheHeader() string {
	return "uwf-entry-cache " + strconv.Itoa(entryCacheVersion) + "\n"
}

// entryRecord is what the cache keeps of one thread commit.
type entryRecord struct {
	commit, parent, tree gitobj.Hash
	unix                 int64
	tzOffset             int
	node                 objects.Node
	output               json.RawMessage // payload of a step's output node; nil otherwise
	workflow             gitobj.Hash     // the workflow/ subtree the commit pins
	start                gitobj.Hash     // the start node blob of the commit's tree
	body                 json.RawMessage // payload of a step's body text node, when small; nil otherwise
}

// entryShard is the loaded cache file of one start node.
type entryShard struct {
	mu      sync.Mutex
	loaded  bool
	records entryRecords
	rewrite bool // the file is missing, foreign or of another version
}

// entryCache holds the shards loaded by this process, and the start node
// of the thread commits it has seen as heads.
type entryCache struct {
	mu     sync.Mutex
	shards map[gitobj.Hash]*entryShard
	starts map[gitobj.Hash]gitobj.Hash
	// batchAfter is how many commits missing from the cache a walk reads
	// one by one before it reads the rest through git (walk_batch.go):
	// walkBatchAfter when 0, none when negative (tests).
	batchAfter int
	// batchChunk is how many commits a batch walk asks git for at a time
	// (walkChunk when 0; tests set it smaller).
	batchChunk int
	// batchViaGit makes a batch walk read through git even where it could
	// read the objects itself (walkLocal; tests).
	batchViaGit bool
}

// walkBatchAfter returns entryCache.batchAfter as a count.
func (c *entryCache) walkBatchAfter() int {
	switch {
	case c.batchAfter == 0:
		return walkBatchAfter
	case c.batchAfter < 0:
		return 0
	}
	return c.batchAfter
}

// walkLocalAfter is how many commits missing from the cache a walk reads
// one by one before it reads the rest itself as a batch (walkLocal): none
// by default, as that batch costs no process; what tests set otherwise,
// as for the batch through git.
func (c *entryCache) walkLocalAfter() int {
	if c.batchAfter == 0 {
		return 0
	}
	return c.walkBatchAfter()
}

// walkChunk returns entryCache.batchChunk as a count.
func (c *entryCache) walkChunk() int {
	if c.batchChunk <= 0 {
		return walkChunk
	}
	return c.batchChunk
}

// rememberStart records the start node of a thread commit.
func (r *Repo) rememberStart(commit, start gitobj.Hash) {
	c := &r.entries
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.starts == nil {
		c.starts = map[gitobj.Hash]gitobj.Hash{}
	}
	c.starts[commit] = start
}

// startOf returns the start node's blob oid of the thread whose commit is
// head: the "start" entry that every thread commit's tree carries.
func (r *Repo) startOf(head gitobj.Hash) (gitobj.Hash, error) {
	c := &r.entries
	c.mu.Lock()
	start, ok := c.starts[head]
	c.mu.Unlock()
	if ok {
		return start, nil
	}
	commit, err := gitobj.GetCommit(r.Store.Storer(), head)
	if err != nil {
		return gitobj.ZeroHash, fmt.Errorf("read commit %s: %w", head, err)
	}
	oid, err := treeEntry(r.Store.Storer(), commit.TreeHash, "start")
	if err != nil {
		return gitobj.ZeroHash, err
	}
	if oid.IsZero() {
		return gitobj.ZeroHash, fmt.Errorf("commit %s is not a git-uwf thread commit (no start node in its tree)", head)
	}
	r.rememberStart(head, oid)
	return oid, nil
}

func (r *Repo) entryCacheDir() string {
	return filepath.Join(r.UwfDir(), summaryCacheDir, entryCacheDir)
}

// shard returns the (lazily loaded) cache of one start node.
func (r *Repo) shard(start gitobj.Hash) *entryShard {
	c := &r.entries
	c.mu.Lock()
	if c.shards == nil {
		c.shards = map[gitobj.Hash]*entryShard{}
	}
	s := c.shards[start]
	if s == nil {
		s = &entryShard{}
		c.shards[start] = s
	}
	c.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		s.records, s.rewrite = loadEntryShard(filepath.Join(r.entryCacheDir(), start.String()))
		s.loaded = true
	}
	return s
}

func (s *entryShard) get(c gitobj.Hash) (entryRecord, bool) {
	if s == nil {
		return entryRecord{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.records.get(c)
}

// loadEntryShard reads one cache file. Missing, foreign or older files read
// as empty and are marked for rewriting; bad lines are skipped.
//
// The file is read through a small buffer, not whole: of each line only
// the payloads are kept (the hex oids are decoded), copied into one block
// sized for the whole file. A block that large is not touched beyond what
// is copied into it, so a long thread's load costs the memory (and the
// page faults, which dominate a short process) of what it keeps.
func loadEntryShard(path string) (entryRecords, bool) {
	var out entryRecords
	f, err := os.Open(path)
	if err != nil {
		return out, true
	}
	defer f.Close()
	size := 0
	if fi, err := f.Stat(); err == nil {
		size = int(fi.Size())
	}
	br := bufio.NewReaderSize(f, entryReadBuffer)
	if head, err := br.ReadSlice('\n'); err != nil || string(head) != entryCacheHeader() {
		return out, true
	}
	// No line is shorter than minEntryLine, so neither recs nor kept
	// grows (unless the file grows while it is read, which costs only a
	// copy): the tails of them that stay unused cost nothing.
	recs := make([]entryRecord, 0, size/minEntryLine+1)
	kept := make([]byte, 0, size)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil {
			break // the end, or a torn tail (a writer died, or is still writing)
		}
		rec, ok := parseEntryRecord(line[:len(line)-1])
		if !ok {
			continue
		}
		kept, rec.node.Payload = keep(kept, rec.node.Payload)
		kept, rec.output = keep(kept, rec.output)
		kept, rec.body = keep(kept, rec.body)
		recs = append(recs, rec)
	}
	// The index is made once its size is known; put keeps the last record
	// of a commit written twice, in the place of the first, writing into
	// recs no further than it has read.
	out.index = make(map[gitobj.Hash]int32, len(recs))
	out.list = recs[:0]
	for _, rec := range recs {
		out.put(rec)
	}
	return out, false
}

const (
	// entryReadBuffer is the buffer loadEntryShard reads a file through.
	entryReadBuffer = 32 << 10
	// minEntryLine is less than the length of any record line: its six
	// oids alone take 240 bytes.
	minEntryLine = 256
)

// keep copies b (nil stays nil) to the end of block and returns block and
// the copy.
func keep(block []byte, b json.RawMessage) ([]byte, json.RawMessage) {
	if b == nil {
		return block, nil
	}
	n := len(block)
	block = append(block, b...)
	return block, json.RawMessage(block[n:len(block):len(block)])
}

// entryRecords are the records of one file, in file order, by commit.
type entryRecords struct {
	index map[gitobj.Hash]int32
	list  []entryRecord
}

func (rs *entryRecords) get(c gitobj.Hash) (entryRecord, bool) {
	i, ok := rs.index[c]
	if !ok {
		return entryRecord{}, false
	}
	return rs.list[i], true
}

// put adds a record, or replaces the one of the same commit.
func (rs *entryRecords) put(rec entryRecord) {
	if i, ok := rs.index[rec.commit]; ok {
		rs.list[i] = rec
		return
	}
	if rs.index == nil {
		rs.index = map[gitobj.Hash]int32{}
	}
	rs.index[rec.commit] = int32(len(rs.list))
	rs.list = append(rs.list, rec)
}

// entryCRC is made on first use: building the Castagnoli tables costs more
// than a millisecond of CPU, which every command paid at start-up.
var entryCRC = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Line format (tab-separated): commit parent tree unix tzOffset nodeAlias
// nodeOID nodeType payload output workflowTree body start crc. Canonical
// JSON holds no tab or newline; an absent output or body is "-".
func formatEntryRecord(rec entryRecord) []byte {
	return appendEntryRecord(nil, rec)
}

// appendEntryRecord appends the line of rec to b.
func appendEntryRecord(b []byte, rec entryRecord) []byte {
	start := len(b)
	b = hex.AppendEncode(b, rec.commit[:])
	b = append(b, '\t')
	b = hex.AppendEncode(b, rec.parent[:])
	b = append(b, '\t')
	b = hex.AppendEncode(b, rec.tree[:])
	b = append(b, '\t')
	b = strconv.AppendInt(b, rec.unix, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(rec.tzOffset), 10)
	b = append(b, '\t')
	b = append(b, rec.node.Alias...)
	b = append(b, '\t')
	b = hex.AppendEncode(b, rec.node.OID[:])
	b = append(b, '\t')
	b = append(b, rec.node.Type...)
	b = append(b, '\t')
	b = append(b, rec.node.Payload...)
	b = append(b, '\t')
	if rec.output == nil {
		b = append(b, '-')
	} else {
		b = append(b, rec.output...)
	}
	b = append(b, '\t')
	b = hex.AppendEncode(b, rec.workflow[:])
	b = append(b, '\t')
	if rec.body == nil {
		b = append(b, '-')
	} else {
		b = append(b, rec.body...)
	}
	b = append(b, '\t')
	b = hex.AppendEncode(b, rec.start[:])
	sum := crc32.Checksum(b[start:], entryCRC())
	b = append(b, '\t')
	b = strconv.AppendUint(b, uint64(sum), 16)
	return append(b, '\n')
}

// entryRecordsSize is about the length of the lines of recs, to size a
// buffer for them in one allocation.
func entryRecordsSize(recs []entryRecord) int {
	n := 0
	for _, rec := range recs {
		n += 6*40 + 64 + len(rec.node.Alias) + len(rec.node.Type) + len(rec.node.Payload) + len(rec.output) + len(rec.body)
	}
	return n
}

func parseEntryRecord(line []byte) (entryRecord, bool) {
	cut := bytes.LastIndexByte(line, '\t')
	if cut < 0 {
		return entryRecord{}, false
	}
	sum, err := strconv.ParseUint(string(line[cut+1:]), 16, 32)
	if err != nil || uint32(sum) != crc32.Checksum(line[:cut], entryCRC()) {
		return entryRecord{}, false
	}
	var f [13][]byte
	rest := line[:cut]
	for i := range f {
		j := bytes.IndexByte(rest, '\t')
		if (j < 0) != (i == len(f)-1) {
			return entryRecord{}, false // too few or too many fields
		}
		if j < 0 {
			f[i] = rest
			break
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	var rec entryRecord
	var ok bool
	if rec.commit, ok = parseHash(f[0]); !ok {
		return entryRecord{}, false
	}
	if rec.parent, ok = parseHash(f[1]); !ok {
		return entryRecord{}, false
	}
	if rec.tree, ok = parseHash(f[2]); !ok {
		return entryRecord{}, false
	}
	if rec.unix, err = strconv.ParseInt(string(f[3]), 10, 64); err != nil {
		return entryRecord{}, false
	}
	tz, err := strconv.Atoi(string(f[4]))
	if err != nil {
		return entryRecord{}, false
	}
	rec.tzOffset = tz
	rec.node.Alias = objects.Alias(f[5])
	if rec.node.OID, ok = parseHash(f[6]); !ok {
		return entryRecord{}, false
	}
	switch typ := f[7]; { // the thread node types need no copy
	case string(typ) == string(stepNodeAlias):
		rec.node.Type = stepNodeAlias
	case string(typ) == string(startNodeAlias):
		rec.node.Type = startNodeAlias
	case string(typ) == string(cancelNodeAlias):
		rec.node.Type = cancelNodeAlias
	default:
		rec.node.Type = objects.Alias(typ)
	}
	rec.node.Payload = json.RawMessage(f[8])
	if string(f[9]) != "-" {
		rec.output = json.RawMessage(f[9])
	}
	if rec.workflow, ok = parseHash(f[10]); !ok {
		return entryRecord{}, false
	}
	if string(f[11]) != "-" {
		rec.body = json.RawMessage(f[11])
	}
	if rec.start, ok = parseHash(f[12]); !ok {
		return entryRecord{}, false
	}
	return rec, true
}

func parseHash(b []byte) (gitobj.Hash, bool) {
	if len(b) != 40 {
		return gitobj.ZeroHash, false
	}
	var h gitobj.Hash
	if _, err := hex.Decode(h[:], b); err != nil {
		return gitobj.ZeroHash, false
	}
	return h, true
}

// recordOf builds the cache record of an entry read from git; output and
// body are the payloads of its step's output and body nodes (nil for other
// kinds, and for a body that is missing or too large), workflow and start
// the workflow/ subtree and the start blob of its tree.
func recordOf(e *Entry, output, body json.RawMessage, workflow, start gitobj.Hash) entryRecord {
	_, off := e.Time.Zone()
	if len(body) > maxCachedBody {
		body = nil
	}
	return entryRecord{commit: e.Commit, parent: e.Parent, tree: e.Tree, unix: e.Time.Unix(), tzOffset: off,
		node: e.Node, output: output, body: body, workflow: workflow, start: start}
}

// zones hands out the fixed time zone of an offset, the same one for the
// same offset (a thread's commits are mostly made in one zone).
type zones struct {
	off int
	loc *time.Location
}

func (z *zones) at(off int) *time.Location {
	if z.loc == nil || z.off != off {
		z.off, z.loc = off, time.FixedZone("", off)
	}
	return z.loc
}

// entryFromRecord decodes a cached record exactly as Entry decodes the
// commit it came from; without decode, the node is left to decodePayload.
func (r *Repo) entryFromRecord(rec entryRecord, z *zones, decode bool) (*Entry, error) {
	e := &Entry{Commit: rec.commit, Parent: rec.parent, Tree: rec.tree,
		Time: time.Unix(rec.unix, 0).In(z.at(rec.tzOffset)), Node: rec.node, output: rec.output, body: rec.body}
	if err := r.setKind(e); err != nil {
		return nil, err
	}
	if decode {
		if err := decodePayload(e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// appendEntries writes new records to the start node's file in one append
// (or rewrites the file when it was missing, foreign or of an older
// format). Failing to write the cache only costs a later walk its speed,
// so errors are returned for tests and ignored by callers.
func (r *Repo) appendEntries(start gitobj.Hash, s *entryShard, recs []entryRecord) error {
	if s == nil || len(recs) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range recs {
		s.records.put(rec)
	}
	dir := r.entryCacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("entry cache: %w", err)
	}
	lock := flock.New(filepath.Join(filepath.Dir(dir), entryCacheLock))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("entry cache: lock: %w", err)
	}
	defer func() { _ = lock.Unlock() }()
	path := filepath.Join(dir, start.String())
	var buf []byte
	rewrite := s.rewrite
	if !rewrite {
		// Someone may have replaced or removed the file since it was read.
		head := make([]byte, len(entryCacheHeader()))
		f, err := os.Open(path)
		switch {
		case err != nil:
			rewrite = true
		default:
			n, _ := f.ReadAt(head, 0)
			rewrite = string(head[:n]) != entryCacheHeader()
			if fi, err := f.Stat(); err == nil && !rewrite {
				last := make([]byte, 1)
				if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
					buf = append(buf, '\n') // end a line torn by a crashed writer
				}
			}
			_ = f.Close()
		}
	}
	if rewrite {
		buf = make([]byte, 0, len(entryCacheHeader())+entryRecordsSize(s.records.list))
		buf = append(buf, entryCacheHeader()...)
		for _, rec := range s.records.list {
			buf = appendEntryRecord(buf, rec)
		}
		if err := atomicfile.Write(path, buf, 0o644); err != nil {
			return fmt.Errorf("entry cache: %w", err)
		}
		s.rewrite = false
		return nil
	}
	buf = slices.Grow(buf, entryRecordsSize(recs))
	for _, rec := range recs {
		buf = appendEntryRecord(buf, rec)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("entry cache: %w", err)
	}
	_, werr := f.Write(buf)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("entry cache: append to %s: %w", path, werr)
	}
	return nil
}

// gitRecord builds the entry record of an entry just read from git, whose
// tree is root. It reads the tree's nodes/ once for everything the record
// keeps: a cold walk of a long thread pays this per step.
func (r *Repo) gitRecord(e *Entry, root *gitobj.Tree) entryRecord {
	s := r.Store.Storer()
	var output, body json.RawMessage
	if e.Step != nil {
		var nodes *gitobj.Tree
		if h := topEntry(root, "nodes"); !h.IsZero() {
			nodes, _ = gitobj.GetTree(s, h) // without it, NodeInCommit looks further
		}
		// The output is read as NodeInCommit reads it (teaching the alias
		// index, as walks always have).
		if h := topEntry(nodes, string(e.Step.Output)); !h.IsZero() {
			if n, err := r.Store.GetOID(h); err == nil && n.Alias == e.Step.Output {
				output = n.Payload
			}
		}
		if output == nil {
			if n, err := r.NodeInCommit(e, e.Step.Output); err == nil {
				output = n.Payload
			}
		}
		if e.Step.Body != "" {
			body = bodyPayload(s, topEntry(nodes, string(e.Step.Body)), e.Step.Body)
		}
	}
	return recordOf(e, output, body, topEntry(root, "workflow"), topEntry(root, "start"))
}

// bodyPayload reads the payload of the body node a in blob oid for an
// entry record, when it is small enough to keep (nil otherwise: Text then
// reads it when it is shown). It reads the blob directly: teaching the
// alias index one node at a time costs a locked append each, which a cold
// walk of a long thread would pay per step.
func bodyPayload(s gitobj.Storer, oid gitobj.Hash, a objects.Alias) json.RawMessage {
	if oid.IsZero() {
		return nil
	}
	obj, err := s.EncodedObject(gitobj.BlobObject, oid)
	if err != nil || obj.Size() > maxCachedBody+64 {
		return nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil
	}
	n, err := objects.DecodeNode(b)
	if err != nil || n.Alias != a {
		return nil
	}
	return n.Payload
}
