package chain

import (
	"context"
	"encoding/json"
	"math"
	"sync"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// walkLocal is walkBatch reading the objects in this process, from the
// pack files and loose objects (objects.ObjectReader), instead of through
// rev-list and cat-file: the walk follows first parents from the commits
// it reads. The pipe to git, git's own start and its copy of every object
// cost about as much CPU as the reading itself, on both sides of the pipe.
//
// The entries and records are walkBatch's: the same parsers, the same
// rules for the output and the body, the same stops (a commit the cache
// has, a commit without a Uwf-Thread trailer, the start entry). Anything
// it does not settle plainly (an object it cannot find or read, a node
// that does not decode) gives the whole walk up with errWalkBatch, and the
// caller reads the chain through git instead.
func (r *Repo) walkLocal(ctx context.Context, from gitobj.Hash, cached func(gitobj.Hash) bool) ([]*Entry, []entryRecord, gitobj.Hash, error) {
	heads, ok := r.Store.ObjectReader()
	if !ok || r.entries.batchViaGit {
		return nil, nil, gitobj.ZeroHash, errWalkBatch
	}
	rest := heads.Another()
	// The work is shared as git and this process shared it: one
	// goroutine follows the first parents, reading each commit and its
	// tree; walkWorkers others read the node, the nodes/ tree, the output
	// and the body of the commits it hands them, and decode the node, each
	// commit where its place in the chain says. The first stops at a
	// commit whose node is its tree's start node (the start commit); the
	// entries are then checked in order: the walk ends at the first start
	// entry, and fails if any entry before it failed, or if it is not
	// where the first goroutine stopped (a hand-made history).
	type job struct {
		i    int
		e    *Entry // Commit, Parent, Tree and Time set
		root rootNames
	}
	jobs := make(chan job, 2*walkChunk)
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	var (
		next    gitobj.Hash
		walkOK  bool // the first goroutine reached a stop
		atStart bool // … the start commit
		listed  []*Entry
		roots   []rootNames
	)
	go func() {
		defer close(jobs)
		w := localWalk{rd: heads}
		for c := from; !c.IsZero(); {
			if len(listed)%walkChunk == 0 && ctx.Err() != nil {
				return
			}
			if c != from && cached(c) {
				next, walkOK = c, true
				return
			}
			commit, ok := w.commit(c)
			if !ok {
				return
			}
			if c != from && !hasThreadTrailer(commit.Message) {
				// As walkBatch: the walk reads it one commit at a time
				// and reports what is wrong with it.
				next, walkOK = c, true
				return
			}
			var found [4]gitobj.Hash
			if !w.tree(commit.TreeHash, rootTreeNames, found[:]) {
				return
			}
			root := rootNames{node: found[0], nodes: found[1], workflow: found[2], start: found[3]}
			e := &Entry{Commit: c, Tree: commit.TreeHash, Time: commit.Committer.When}
			if len(commit.ParentHashes) > 0 {
				e.Parent = commit.ParentHashes[0]
			}
			listed, roots = append(listed, e), append(roots, root)
			select {
			case jobs <- job{len(listed) - 1, e, root}:
			case <-stop:
				return
			}
			if root.node == root.start {
				walkOK, atStart = true, true
				return
			}
			c = e.Parent
		}
		// The root commit is not a start entry: let the walk report it.
	}()
	// Each worker's results, by place in the chain.
	type result struct {
		rec entryRecord
		ok  bool
	}
	var (
		mu      sync.Mutex
		results = map[int]result{}
		last    = math.MaxInt // the first failed or start entry so far
		wg      sync.WaitGroup
	)
	for k := range walkWorkers {
		rd := rest
		if k > 0 {
			rd = rest.Another()
		}
		wg.Go(func() {
			w := localWalk{rd: rd}
			for j := range jobs {
				mu.Lock()
				past := j.i > last
				mu.Unlock()
				if past {
					continue // until the first goroutine sees stop
				}
				rec, ok := r.localRecord(&w, j.e, j.root)
				mu.Lock()
				results[j.i] = result{rec, ok}
				if !ok || j.e.Kind == KindStart {
					// Nothing past it is used.
					last = min(last, j.i)
					halt()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	halt()
	if err := ctx.Err(); err != nil {
		return nil, nil, gitobj.ZeroHash, err
	}
	entries := make([]*Entry, 0, len(listed))
	recs := make([]entryRecord, 0, len(listed))
	for i, e := range listed {
		res, ok := results[i]
		if !ok || !res.ok {
			return nil, nil, gitobj.ZeroHash, errWalkBatch
		}
		r.outputElsewhere(e, &res.rec)
		entries, recs = append(entries, e), append(recs, res.rec)
		if e.Kind == KindStart {
			return entries, recs, gitobj.ZeroHash, nil
		}
	}
	if !walkOK || atStart || len(entries) == 0 {
		// A read that failed, or a start commit whose node is no start
		// entry: let the walk report it.
		return nil, nil, gitobj.ZeroHash, errWalkBatch
	}
	return entries, recs, next, nil
}

// walkWorkers is how many goroutines of walkLocal read the nodes, outputs
// and bodies: together about twice the work of following the parents.
const walkWorkers = 2

// hasThreadTrailer reports whether a commit message has a line starting
// with "Uwf-Thread: ", as every thread commit's has (the test walkBatch
// makes on rev-list's indented copy of the message).
func hasThreadTrailer(msg string) bool {
	const t = "Uwf-Thread: "
	for len(msg) > 0 {
		if len(msg) >= len(t) && msg[:len(t)] == t {
			return true
		}
		i := 0
		for i < len(msg) && msg[i] != '\n' {
			i++
		}
		if i == len(msg) {
			return false
		}
		msg = msg[i+1:]
	}
	return false
}

// rootNames are the entries of a thread commit's tree that a walk reads.
type rootNames struct {
	node, nodes, workflow, start gitobj.Hash
}

// rootTreeNames are the names of rootNames, in order.
var rootTreeNames = []string{"node", "nodes", "workflow", "start"}

// localRecord reads and decodes the node of entry e, whose commit fields
// are set, and reads what its record keeps besides the entry (its step's
// output and body), and sets them on e.
func (r *Repo) localRecord(w *localWalk, e *Entry, root rootNames) (entryRecord, bool) {
	if root.node.IsZero() {
		return entryRecord{}, false
	}
	data, ok := w.read(root.node, gitobj.BlobObject)
	if !ok {
		return entryRecord{}, false
	}
	n, err := objects.DecodeNode(data)
	if err != nil {
		return entryRecord{}, false
	}
	n.OID = root.node
	e.Node = n
	if err := r.decodeNode(e); err != nil {
		return entryRecord{}, false
	}
	var output, body json.RawMessage
	if e.Step != nil {
		// The output and the body in nodes/; without the tree,
		// NodeInCommit looks further.
		var found [2]gitobj.Hash
		if !root.nodes.IsZero() {
			w.names[0], w.names[1] = string(e.Step.Output), string(e.Step.Body)
			w.tree(root.nodes, w.names[:], found[:])
		}
		if h := found[0]; !h.IsZero() {
			output = w.payload(h, e.Step.Output, -1)
		}
		if h := found[1]; e.Step.Body != "" && !h.IsZero() {
			body = w.payload(h, e.Step.Body, maxCachedBody+64)
		}
		// An output found nowhere here is looked for by walkLocal
		// (outputElsewhere), on one goroutine of its own: NodeInCommit
		// reads through the store, which this walk keeps to one goroutine.
	}
	rec := recordOf(e, output, body, root.workflow, root.start)
	e.output, e.body = rec.output, rec.body
	return rec, true
}

// outputElsewhere sets the output of step entry e and of its record rec
// when localRecord did not find it in the commit's nodes/: as gitRecord,
// from a pinned workflow's nodes or the alias index.
func (r *Repo) outputElsewhere(e *Entry, rec *entryRecord) {
	if e.Step == nil || rec.output != nil {
		return
	}
	if n, err := r.NodeInCommit(e, e.Step.Output); err == nil {
		rec.output, e.output = n.Payload, n.Payload
	}
}

// localWalk reads the objects of one walkLocal.
type localWalk struct {
	rd    *objects.ObjectReader
	names [2]string // looked up in a nodes/ tree
}

// read returns the content of object h of type want.
func (w *localWalk) read(h gitobj.Hash, want gitobj.ObjectType) ([]byte, bool) {
	typ, data, err := w.rd.Read(h)
	if err != nil || typ != want {
		return nil, false
	}
	return data, true
}

// scratch is read for an object that is only parsed: its content is good
// until the next read.
func (w *localWalk) scratch(h gitobj.Hash, want gitobj.ObjectType) ([]byte, bool) {
	typ, data, err := w.rd.ReadScratch(h)
	if err != nil || typ != want {
		return nil, false
	}
	return data, true
}

func (w *localWalk) commit(h gitobj.Hash) (*gitobj.Commit, bool) {
	data, ok := w.scratch(h, gitobj.CommitObject)
	if !ok {
		return nil, false
	}
	c, err := gitobj.ParseCommit(data)
	if err != nil {
		return nil, false
	}
	c.Hash = h
	return c, true
}

// tree finds names in tree h (scanTree), reporting false (and found
// all zero) when h is not a tree that reads.
func (w *localWalk) tree(h gitobj.Hash, names []string, found []gitobj.Hash) bool {
	data, ok := w.scratch(h, gitobj.TreeObject)
	if !ok {
		clear(found)
		return false
	}
	return scanTree(data, names, found) == nil
}

// payload returns the payload of node a in blob h, or nil when h is not
// that node or (limit ≥ 0) its blob is over limit bytes.
func (w *localWalk) payload(h gitobj.Hash, a objects.Alias, limit int) json.RawMessage {
	data, ok := w.read(h, gitobj.BlobObject)
	if !ok || (limit >= 0 && len(data) > limit) {
		return nil
	}
	n, err := objects.DecodeNode(data)
	if err != nil || n.Alias != a {
		return nil
	}
	return n.Payload
}
