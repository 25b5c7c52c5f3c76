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
		root *gitobj.Tree
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
	var (
		entries []*Entry
		recs    []entryRecord
	)
	w := localWalk{rd: rest}
	for j := range jobs {
		entries = append(entries, j.e)
		recs = append(recs, r.localRecord(&w, j.e, j.root))
	}
	close(stop)
	if err := ctx.Err(); err != nil {
		return nil, nil, plumbing.ZeroHash, err
	}
	if !walkOK || len(entries) == 0 {
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

// localEntry reads the entry of thread commit c, and its root tree.
func (r *Repo) localEntry(w *localWalk, c plumbing.Hash, commit *gitobj.Commit) (*Entry, *gitobj.Tree, bool) {
	root, ok := w.tree(commit.TreeHash)
	if !ok {
		return nil, nil, false
	}
	nodeOID := topEntry(root, "node")
	if nodeOID.IsZero() {
		return nil, nil, false
	}
	data, ok := w.read(nodeOID, plumbing.BlobObject)
	if !ok {
		return nil, nil, false
	}
	n, err := objects.DecodeNode(data)
	if err != nil {
		return nil, nil, false
	}
	n.OID = nodeOID
	e := &Entry{Commit: c, Tree: commit.TreeHash, Time: commit.Committer.When, Node: n}
	if len(commit.ParentHashes) > 0 {
		e.Parent = commit.ParentHashes[0]
	}
	if err := r.decodeNode(e); err != nil {
		return nil, nil, false
	}
	return e, root, true
}

// localRecord reads what the record of entry e keeps besides the entry
// (its step's output and body), and sets them on e.
func (r *Repo) localRecord(w *localWalk, e *Entry, root *gitobj.Tree) entryRecord {
	var output, body json.RawMessage
	if e.Step != nil {
		var nodes *gitobj.Tree
		if h := topEntry(root, "nodes"); !h.IsZero() {
			nodes, _ = w.tree(h) // without it, NodeInCommit looks further
		}
		if h := topEntry(nodes, string(e.Step.Output)); !h.IsZero() {
			output = w.payload(h, e.Step.Output, -1)
		}
		if a := e.Step.Body; a != "" {
			if h := topEntry(nodes, string(a)); !h.IsZero() {
				body = w.payload(h, a, maxCachedBody+64)
			}
		}
		if output == nil {
			// As gitRecord: the output node is elsewhere (a pinned
			// workflow's nodes, or only in the alias index).
			if n, err := r.NodeInCommit(e, e.Step.Output); err == nil {
				output = n.Payload
			}
		}
	}
	rec := recordOf(e, output, body, topEntry(root, "workflow"), topEntry(root, "start"))
	e.output, e.body = rec.output, rec.body
	return rec
}

// localWalk reads the objects of one walkLocal.
type localWalk struct {
	rd *objects.RawReader
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

func (w *localWalk) tree(h plumbing.Hash) (*gitobj.Tree, bool) {
	data, ok := w.scratch(h, plumbing.TreeObject)
	if !ok {
		return nil, false
	}
	t, err := gitobj.ParseTree(data)
	if err != nil {
		return nil, false
	}
	return t, true
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
