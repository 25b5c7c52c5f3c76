package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/objects"
)

// A chain walk that finds few commits in the entry cache reads them one by
// one (entryWithTree, about five object reads each). Past walkBatchAfter
// such commits it reads the rest of the chain through git instead: one
// `git rev-list --first-parent --header` reads the commits (what
// `git log` costs), and one `git cat-file --batch` process reads their
// objects in three rounds (root trees; nodes and nodes/ trees; outputs
// and bodies).
// Git inflates the objects on one core while this process decodes them on
// the other, and no object costs a pack lookup and a few reads of ours.
//
// The entries and records are the ones the one-by-one walk makes: the same
// parsers (gitobj.ParseCommit, gitobj.ParseTree, objects.DecodeNode) and
// the same rules for the output (the nodes/ entry named by the step,
// else NodeInCommit) and the body (kept when small enough). Anything the
// batch does not settle plainly (a missing object, a node that does not
// decode, a chain that does not reach a start node) makes it give up, and
// the walk goes on one commit at a time from where it was, so errors are
// the one-by-one walk's. Unlike that walk, the batch does not teach the
// alias index the nodes it reads: a lookup that misses refreshes the index
// from the refs anyway, and one locked append per node is what made long
// cold walks slow.
const walkBatchAfter = 16

// revListPage is how many commits one rev-list names: a longer chain
// takes another process per page, and a thread ref whose first parents
// lead into a large history costs no more than a page of it.
const revListPage = 4096

// errWalkBatch makes walkBatch give up; the walk then reads one commit at a
// time.
var errWalkBatch = errors.New("chain walk: not settled by the batch")

// batchCommit is what walkBatch keeps of one commit.
type batchCommit struct {
	id     plumbing.Hash
	commit *gitobj.Commit
	root   *gitobj.Tree
	node   objects.Node
	nodes  *gitobj.Tree // the nodes/ tree, nil when absent
	entry  *Entry
	output json.RawMessage
	body   json.RawMessage
}

// walkBatch reads the chain from commit from down to its start entry, or
// to the first commit that cached says is in the entry cache, through
// rev-list and one cat-file process. It returns the entries, newest first,
// their records, and the commit the walk goes on from (zero after the
// start entry).
func (r *Repo) walkBatch(ctx context.Context, from plumbing.Hash, cached func(plumbing.Hash) bool) ([]*Entry, []entryRecord, plumbing.Hash, error) {
	// cat-file (and the `git version` that picks its mode) starts while
	// rev-list runs.
	type started struct {
		b   *gitrepo.Batch
		err error
	}
	batch := make(chan started, 1)
	go func() {
		b, err := r.Git.NewBatch(ctx)
		batch <- started{b, err}
	}()
	cs, err := r.revListThread(ctx, from, cached, revListPage)
	st := <-batch
	if st.err != nil {
		return nil, nil, plumbing.ZeroHash, fmt.Errorf("%w: %w", errWalkBatch, st.err)
	}
	b := st.b
	defer b.Close()
	if err != nil {
		return nil, nil, plumbing.ZeroHash, err
	}
	if len(cs) == 0 || cs[0].id != from {
		return nil, nil, plumbing.ZeroHash, errWalkBatch
	}

	// Round 1: every root tree.
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		names = append(names, c.commit.TreeHash.String())
	}
	bad := false
	p := b.AskEach(names, func(i int, o gitrepo.Object) {
		c := &cs[i]
		if bad || o.Missing || o.Type != "tree" {
			bad = true
			return
		}
		var err error
		if c.root, err = gitobj.ParseTree(o.Data); err != nil {
			bad = true
		}
	})
	if _, err := p.Wait(); err != nil || bad {
		return nil, nil, plumbing.ZeroHash, errWalkBatch
	}
	for i := range cs {
		c := &cs[i]
		if c.root == nil {
			return nil, nil, plumbing.ZeroHash, errWalkBatch
		}
		if i+1 < len(cs) && (len(c.commit.ParentHashes) == 0 || c.commit.ParentHashes[0] != cs[i+1].id) {
			return nil, nil, plumbing.ZeroHash, errWalkBatch
		}
		if topEntry(c.root, "node").IsZero() {
			return nil, nil, plumbing.ZeroHash, errWalkBatch
		}
	}

	// Round 2: the node of every commit, and its nodes/ tree. Each round
	// has its own names: the Batch holds them until they are written.
	names = make([]string, 0, 2*len(cs))
	type ask struct {
		c     int
		nodes bool
	}
	var asks []ask
	for i, c := range cs {
		names = append(names, topEntry(c.root, "node").String())
		asks = append(asks, ask{i, false})
		if h := topEntry(c.root, "nodes"); !h.IsZero() {
			names = append(names, h.String())
			asks = append(asks, ask{i, true})
		}
	}
	p = b.AskEach(names, func(i int, o gitrepo.Object) {
		c := &cs[asks[i].c]
		switch {
		case bad:
		case asks[i].nodes:
			if !o.Missing && o.Type == "tree" {
				c.nodes, _ = gitobj.ParseTree(o.Data) // without it, NodeInCommit looks further
			}
		default:
			if o.Missing || o.Type != "blob" {
				bad = true
				return
			}
			n, err := objects.DecodeNode(bytes.Clone(o.Data))
			if err != nil {
				bad = true
				return
			}
			n.OID = topEntry(c.root, "node")
			c.node = n
		}
	})
	if _, err := p.Wait(); err != nil || bad {
		return nil, nil, plumbing.ZeroHash, errWalkBatch
	}
	next := plumbing.ZeroHash
	for i := range cs {
		c := &cs[i]
		e := &Entry{Commit: c.id, Tree: c.commit.TreeHash, Time: c.commit.Committer.When, Node: c.node}
		if len(c.commit.ParentHashes) > 0 {
			e.Parent = c.commit.ParentHashes[0]
		}
		if err := r.decodeNode(e); err != nil {
			return nil, nil, plumbing.ZeroHash, errWalkBatch
		}
		c.entry = e
		next = e.Parent
		if e.Kind == KindStart {
			cs, next = cs[:i+1], plumbing.ZeroHash
			break
		}
	}

	// Round 3: the output and body of every step, named by its nodes/ tree.
	names = make([]string, 0, 2*len(cs))
	type want struct {
		c    int
		body bool
	}
	var wants []want
	for i, c := range cs {
		if c.entry.Step == nil {
			continue
		}
		if h := topEntry(c.nodes, string(c.entry.Step.Output)); !h.IsZero() {
			names = append(names, h.String())
			wants = append(wants, want{i, false})
		}
		if a := c.entry.Step.Body; a != "" {
			if h := topEntry(c.nodes, string(a)); !h.IsZero() {
				names = append(names, h.String())
				wants = append(wants, want{i, true})
			}
		}
	}
	p = b.AskEach(names, func(i int, o gitrepo.Object) {
		w := wants[i]
		c := &cs[w.c]
		if o.Missing || o.Type != "blob" || (w.body && len(o.Data) > maxCachedBody+64) {
			return // the output is looked for further below; the body is read when shown
		}
		n, err := objects.DecodeNode(bytes.Clone(o.Data))
		switch {
		case err != nil:
		case w.body && n.Alias == c.entry.Step.Body:
			c.body = n.Payload
		case !w.body && n.Alias == c.entry.Step.Output:
			c.output = n.Payload
		}
	})
	if _, err := p.Wait(); err != nil {
		return nil, nil, plumbing.ZeroHash, errWalkBatch
	}

	entries := make([]*Entry, len(cs))
	recs := make([]entryRecord, len(cs))
	for i := range cs {
		c := &cs[i]
		e := c.entry
		if e.Step != nil && c.output == nil {
			// As gitRecord: the output node is elsewhere (a pinned
			// workflow's nodes, or only in the alias index).
			if n, err := r.NodeInCommit(e, e.Step.Output); err == nil {
				c.output = n.Payload
			}
		}
		rec := recordOf(e, c.output, c.body, topEntry(c.root, "workflow"), topEntry(c.root, "start"))
		e.output, e.body = rec.output, rec.body
		entries[i], recs[i] = e, rec
	}
	return entries, recs, next, nil
}

// revListThread reads the thread commits from commit from down the first
// parents, page commits per rev-list, until the first one cached says is in the entry cache (from
// itself is always read), the root, or a commit whose message has no
// Uwf-Thread trailer (every thread commit has one; the walk reads
// anything else one commit at a time and reports what is wrong with it).
//
// rev-list --header writes each commit's id and raw headers (the message
// indented by four spaces), NUL-terminated: the commits cost what
// `git log` costs, and cat-file is left only trees and blobs to read.
func (r *Repo) revListThread(ctx context.Context, from plumbing.Hash, cached func(plumbing.Hash) bool, page int) ([]batchCommit, error) {
	var cs []batchCommit
	for next := from; ; {
		out, err := r.Git.Run(ctx, nil, "--no-replace-objects", "rev-list", "--first-parent", "--header", "--max-count="+strconv.Itoa(page), next.String())
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errWalkBatch, err)
		}
		n := 0
		for len(out) > 0 {
			rec, rest, ok := bytes.Cut(out, []byte{0})
			if !ok {
				return nil, errWalkBatch
			}
			out = rest
			n++
			id, raw, _ := bytes.Cut(rec, []byte{'\n'})
			h, ok := parseHash(id)
			if !ok {
				return nil, errWalkBatch
			}
			if len(cs) > 0 && (cached(h) || !bytes.Contains(raw, []byte("\n    Uwf-Thread: "))) {
				return cs, nil
			}
			commit, err := gitobj.ParseCommit(raw)
			if err != nil {
				return nil, errWalkBatch
			}
			cs = append(cs, batchCommit{id: h, commit: commit})
		}
		if n < page || len(cs) == 0 || len(cs[len(cs)-1].commit.ParentHashes) == 0 {
			return cs, nil
		}
		next = cs[len(cs)-1].commit.ParentHashes[0]
	}
}
