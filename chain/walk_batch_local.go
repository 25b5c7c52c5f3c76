package chain

import (
	"context"
	"encoding/json"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// walkLocal is walkBatch reading the objects in this process, from the
// pack files and loose objects (objects.RawReader), instead of through
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
func (r *Repo) walkLocal(ctx context.Context, from plumbing.Hash, cached func(plumbing.Hash) bool) ([]*Entry, []entryRecord, plumbing.Hash, error) {
	heads, ok := r.Store.RawReader()
	if !ok || r.entries.batchViaGit {
		return nil, nil, plumbing.ZeroHash, errWalkBatch
	}
	rest, _ := r.Store.RawReader()
	// Two goroutines share the work, as git and this process shared it:
	// one follows the first parents, reading each commit, its tree and
	// its node (which says where the chain starts); the other reads the
	// nodes/ tree, the output and the body of the entries it is handed.
	type job struct {
		e    *Entry
		root rootNames
	}
	jobs := make(chan job, 2*walkChunk)
	stop := make(chan struct{})
	var (
		next   plumbing.Hash
		walkOK bool
	)
	go func() {
		defer close(jobs)
		w := localWalk{rd: heads}
		for c, n := from, 0; !c.IsZero(); n++ {
			if n%walkChunk == 0 && ctx.Err() != nil {
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
			e, root, ok := r.localEntry(&w, c, commit)
			if !ok {
				return
			}
			select {
			case jobs <- job{e, root}:
			case <-stop:
				return
			}
			if e.Kind == KindStart {
				walkOK = true
				return
			}
			c = e.Parent
		}
		// The root commit is not a start entry: let the walk report it.
	}()
	entries := make([]*Entry, 0, walkChunk)
	recs := make([]entryRecord, 0, walkChunk)
	w := localWalk{rd: rest}
	recsOK := true
	for j := range jobs {
		if !recsOK {
			continue // until the other goroutine sees stop
		}
		rec, ok := r.localRecord(&w, j.e, j.root)
		if !ok {
			recsOK = false
			close(stop)
			continue
		}
		entries, recs = append(entries, j.e), append(recs, rec)
	}
	if recsOK {
		close(stop)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, plumbing.ZeroHash, err
	}
	if !walkOK || !recsOK || len(entries) == 0 {
		return nil, nil, plumbing.ZeroHash, errWalkBatch
	}
	return entries, recs, next, nil
}

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
	node, nodes, workflow, start plumbing.Hash
}

// rootTreeNames are the names of rootNames, in order.
var rootTreeNames = []string{"node", "nodes", "workflow", "start"}

// localEntry reads the entry of thread commit c, and the entries of its
// tree that its record needs.
func (r *Repo) localEntry(w *localWalk, c plumbing.Hash, commit *gitobj.Commit) (*Entry, rootNames, bool) {
	var found [4]plumbing.Hash
	if !w.tree(commit.TreeHash, rootTreeNames, found[:]) {
		return nil, rootNames{}, false
	}
	root := rootNames{node: found[0], nodes: found[1], workflow: found[2], start: found[3]}
	nodeOID := root.node
	if nodeOID.IsZero() {
		return nil, rootNames{}, false
	}
	data, ok := w.read(nodeOID, plumbing.BlobObject)
	if !ok {
		return nil, rootNames{}, false
	}
	n, err := objects.DecodeNode(data)
	if err != nil {
		return nil, rootNames{}, false
	}
	n.OID = nodeOID
	e := &Entry{Commit: c, Tree: commit.TreeHash, Time: commit.Committer.When, Node: n}
	if len(commit.ParentHashes) > 0 {
		e.Parent = commit.ParentHashes[0]
	}
	// The kind says where the chain starts; the node itself is decoded by
	// the other goroutine (localRecord).
	if err := r.setKind(e); err != nil {
		return nil, rootNames{}, false
	}
	return e, root, true
}

// localRecord decodes the node of entry e, whose kind is set, and reads
// what its record keeps besides the entry (its step's output and body),
// and sets them on e.
func (r *Repo) localRecord(w *localWalk, e *Entry, root rootNames) (entryRecord, bool) {
	if err := decodePayload(e); err != nil {
		return entryRecord{}, false
	}
	var output, body json.RawMessage
	if e.Step != nil {
		// The output and the body in nodes/; without the tree,
		// NodeInCommit looks further.
		var found [2]plumbing.Hash
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
		if output == nil {
			// As gitRecord: the output node is elsewhere (a pinned
			// workflow's nodes, or only in the alias index).
			if n, err := r.NodeInCommit(e, e.Step.Output); err == nil {
				output = n.Payload
			}
		}
	}
	rec := recordOf(e, output, body, root.workflow, root.start)
	e.output, e.body = rec.output, rec.body
	return rec, true
}

// localWalk reads the objects of one walkLocal.
type localWalk struct {
	rd    *objects.RawReader
	names [2]string // looked up in a nodes/ tree
}

// read returns the content of object h of type want.
func (w *localWalk) read(h plumbing.Hash, want plumbing.ObjectType) ([]byte, bool) {
	typ, data, err := w.rd.Read(h)
	if err != nil || typ != want {
		return nil, false
	}
	return data, true
}

// scratch is read for an object that is only parsed: its content is good
// until the next read.
func (w *localWalk) scratch(h plumbing.Hash, want plumbing.ObjectType) ([]byte, bool) {
	typ, data, err := w.rd.ReadScratch(h)
	if err != nil || typ != want {
		return nil, false
	}
	return data, true
}

func (w *localWalk) commit(h plumbing.Hash) (*gitobj.Commit, bool) {
	data, ok := w.scratch(h, plumbing.CommitObject)
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
func (w *localWalk) tree(h plumbing.Hash, names []string, found []plumbing.Hash) bool {
	data, ok := w.scratch(h, plumbing.TreeObject)
	if !ok {
		clear(found)
		return false
	}
	return scanTree(data, names, found) == nil
}

// payload returns the payload of node a in blob h, or nil when h is not
// that node or (limit ≥ 0) its blob is over limit bytes.
func (w *localWalk) payload(h plumbing.Hash, a objects.Alias, limit int) json.RawMessage {
	data, ok := w.read(h, plumbing.BlobObject)
	if !ok || (limit >= 0 && len(data) > limit) {
		return nil
	}
	n, err := objects.DecodeNode(data)
	if err != nil || n.Alias != a {
		return nil
	}
	return n.Payload
}
