package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/objects"
)

// A chain walk reads the commits the entry cache misses in this process
// first (walkLocal, walk_batch_local.go). When that gives up (an object it
// cannot read itself: an alternate object directory, an index of version
// 1), it reads them one by one (entryWithTree, about five object reads
// each), and past walkBatchAfter such commits the rest of the chain
// through git instead: one
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

// walkChunk is how many commits of a batch walk go to git in one request
// per round: small enough that git starts on the first commits while
// rev-list still lists the rest, large enough that the requests cost
// little.
const walkChunk = 64

// errWalkBatch makes walkBatch give up; the walk then reads one commit at a
// time.
var errWalkBatch = errors.New("chain walk: not settled by the batch")

// batchCommit is what walkBatch keeps of one commit.
type batchCommit struct {
	id     gitobj.Hash
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
//
// The work is pipelined in chunks of walkChunk commits: rev-list's output
// is read as git writes it, and each chunk's root trees are asked for as
// soon as its commits are parsed, its nodes and nodes/ trees as soon as its
// root trees are read, and its outputs and bodies as soon as its nodes are
// decoded. So rev-list, cat-file and this process work at the same time
// instead of in turn. The answers are the ones three whole rounds give:
// every check of a round still covers every commit, and any failure gives
// the whole batch up.
func (r *Repo) walkBatch(ctx context.Context, from gitobj.Hash, cached func(gitobj.Hash) bool) ([]*Entry, []entryRecord, gitobj.Hash, error) {
	// cat-file starts while rev-list runs.
	type started struct {
		b   *gitrepo.Batch
		err error
	}
	batch := make(chan started, 1)
	go func() {
		b, err := r.Git.NewBatch(ctx)
		batch <- started{b, err}
	}()
	listCtx, cancel := context.WithCancel(ctx)
	commits := make(chan *batchCommit, 2*walkChunk)
	listed := make(chan error, 1)
	go func() {
		defer close(commits)
		listed <- r.revListEach(listCtx, from, cached, revListPage, func(c *batchCommit) bool {
			select {
			case commits <- c:
				return true
			case <-listCtx.Done():
				return false
			}
		})
	}()
	// stopList ends rev-list early and waits for its goroutine.
	stopList := func() {
		cancel()
		for range commits {
		}
		<-listed
	}
	st := <-batch
	if st.err != nil {
		stopList()
		return nil, nil, gitobj.ZeroHash, fmt.Errorf("%w: %w", errWalkBatch, st.err)
	}
	b := st.b
	defer b.Close()

	chunk := r.entries.walkChunk()
	var (
		cs     []*batchCommit
		rounds []*treeRound
	)
	for c := range commits {
		cs = append(cs, c)
		if len(cs)%chunk == 0 {
			rounds = append(rounds, askWalkTrees(b, cs[len(cs)-chunk:], len(cs)-chunk))
		}
	}
	err := <-listed
	cancel()
	if err != nil {
		return nil, nil, gitobj.ZeroHash, err
	}
	if len(cs) == 0 || cs[0].id != from {
		return nil, nil, gitobj.ZeroHash, errWalkBatch
	}
	if rest := len(cs) % chunk; rest > 0 {
		rounds = append(rounds, askWalkTrees(b, cs[len(cs)-rest:], len(cs)-rest))
	}

	// Each chunk's nodes and nodes/ trees, asked for as its root trees
	// come.
	nodeRounds := make([]*nodeRound, 0, len(rounds))
	for _, rd := range rounds {
		if _, err := rd.p.Wait(); err != nil || rd.bad {
			return nil, nil, gitobj.ZeroHash, errWalkBatch
		}
		for i, c := range rd.cs {
			if c.root == nil {
				return nil, nil, gitobj.ZeroHash, errWalkBatch
			}
			if j := rd.lo + i + 1; j < len(cs) && (len(c.commit.ParentHashes) == 0 || c.commit.ParentHashes[0] != cs[j].id) {
				return nil, nil, gitobj.ZeroHash, errWalkBatch
			}
			if topEntry(c.root, "node").IsZero() {
				return nil, nil, gitobj.ZeroHash, errWalkBatch
			}
		}
		nodeRounds = append(nodeRounds, askWalkNodes(b, rd.cs))
	}

	// Each chunk's entries, decoded as its nodes come, down to the start
	// entry; then its outputs and bodies.
	next, end := gitobj.ZeroHash, len(cs)
	var bodyRounds []*bodyRound
	for k, rd := range nodeRounds {
		if _, err := rd.p.Wait(); err != nil || rd.bad {
			return nil, nil, gitobj.ZeroHash, errWalkBatch
		}
		lo := rounds[k].lo
		if lo >= end {
			continue // past the start entry: only checked, as above
		}
		hi := lo + len(rd.cs)
		for i := lo; i < hi; i++ {
			c := cs[i]
			e := &Entry{Commit: c.id, Tree: c.commit.TreeHash, Time: c.commit.Committer.When, Node: c.node}
			if len(c.commit.ParentHashes) > 0 {
				e.Parent = c.commit.ParentHashes[0]
			}
			if err := r.decodeNode(e); err != nil {
				return nil, nil, gitobj.ZeroHash, errWalkBatch
			}
			c.entry = e
			next = e.Parent
			if e.Kind == KindStart {
				end, hi, next = i+1, i+1, gitobj.ZeroHash
				break
			}
		}
		bodyRounds = append(bodyRounds, askWalkBodies(b, cs[lo:hi]))
	}
	cs = cs[:end]
	for _, rd := range bodyRounds {
		if _, err := rd.p.Wait(); err != nil {
			return nil, nil, gitobj.ZeroHash, errWalkBatch
		}
	}

	entries := make([]*Entry, len(cs))
	recs := make([]entryRecord, len(cs))
	for i, c := range cs {
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

// The rounds of a chunk of commits. Their callbacks run on the Batch's
// reading goroutine and write only to the chunk's commits and to the
// round; the walk reads them after the round's Wait.
type (
	// treeRound reads the root trees of cs, commits lo… of the walk.
	treeRound struct {
		p   *gitrepo.Pending
		cs  []*batchCommit
		lo  int
		bad bool
	}
	// nodeRound reads the node and the nodes/ tree of each of cs.
	nodeRound struct {
		p   *gitrepo.Pending
		cs  []*batchCommit
		bad bool
	}
	// bodyRound reads the output and body named by each step of cs.
	bodyRound struct {
		p *gitrepo.Pending
	}
)

func askWalkTrees(b *gitrepo.Batch, cs []*batchCommit, lo int) *treeRound {
	rd := &treeRound{cs: cs, lo: lo}
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		names = append(names, c.commit.TreeHash.String())
	}
	rd.p = b.AskEach(names, func(i int, o gitrepo.Object) {
		if rd.bad || o.Missing || o.Type != "tree" {
			rd.bad = true
			return
		}
		var err error
		if cs[i].root, err = gitobj.ParseTree(o.Data); err != nil {
			rd.bad = true
		}
	})
	return rd
}

func askWalkNodes(b *gitrepo.Batch, cs []*batchCommit) *nodeRound {
	rd := &nodeRound{cs: cs}
	names := make([]string, 0, 2*len(cs))
	type ask struct {
		c     *batchCommit
		nodes bool
	}
	asks := make([]ask, 0, 2*len(cs))
	for _, c := range cs {
		names = append(names, topEntry(c.root, "node").String())
		asks = append(asks, ask{c, false})
		if h := topEntry(c.root, "nodes"); !h.IsZero() {
			names = append(names, h.String())
			asks = append(asks, ask{c, true})
		}
	}
	rd.p = b.AskEach(names, func(i int, o gitrepo.Object) {
		c := asks[i].c
		switch {
		case rd.bad:
		case asks[i].nodes:
			if !o.Missing && o.Type == "tree" {
				c.nodes, _ = gitobj.ParseTree(o.Data) // without it, NodeInCommit looks further
			}
		default:
			if o.Missing || o.Type != "blob" {
				rd.bad = true
				return
			}
			n, err := objects.DecodeNode(bytes.Clone(o.Data))
			if err != nil {
				rd.bad = true
				return
			}
			n.OID = topEntry(c.root, "node")
			c.node = n
		}
	})
	return rd
}

func askWalkBodies(b *gitrepo.Batch, cs []*batchCommit) *bodyRound {
	names := make([]string, 0, 2*len(cs))
	type want struct {
		c    *batchCommit
		body bool
	}
	var wants []want
	for _, c := range cs {
		if c.entry.Step == nil {
			continue
		}
		if h := topEntry(c.nodes, string(c.entry.Step.Output)); !h.IsZero() {
			names = append(names, h.String())
			wants = append(wants, want{c, false})
		}
		if a := c.entry.Step.Body; a != "" {
			if h := topEntry(c.nodes, string(a)); !h.IsZero() {
				names = append(names, h.String())
				wants = append(wants, want{c, true})
			}
		}
	}
	p := b.AskEach(names, func(i int, o gitrepo.Object) {
		w := wants[i]
		c := w.c
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
	return &bodyRound{p: p}
}

// revListThread reads the thread commits from commit from down the first
// parents, page commits per rev-list, until the first one cached says is
// in the entry cache (from itself is always read), the root, or a commit
// whose message has no Uwf-Thread trailer (every thread commit has one;
// the walk reads anything else one commit at a time and reports what is
// wrong with it).
func (r *Repo) revListThread(ctx context.Context, from gitobj.Hash, cached func(gitobj.Hash) bool, page int) ([]*batchCommit, error) {
	var cs []*batchCommit
	err := r.revListEach(ctx, from, cached, page, func(c *batchCommit) bool {
		cs = append(cs, c)
		return true
	})
	return cs, err
}

// revListEach is revListThread handing each commit to each as rev-list
// writes it, from another goroutine; each returns false to stop the list.
//
// rev-list --header writes each commit's id and raw headers (the message
// indented by four spaces), NUL-terminated: the commits cost what
// `git log` costs, and cat-file is left only trees and blobs to read.
func (r *Repo) revListEach(ctx context.Context, from gitobj.Hash, cached func(gitobj.Hash) bool, page int, each func(*batchCommit) bool) error {
	first := true
	for next := from; ; {
		ctx, cancel := context.WithCancel(ctx)
		w := &revListWriter{stop: cancel}
		w.record = func(rec []byte) (bool, error) {
			w.n++
			id, raw, _ := bytes.Cut(rec, []byte{'\n'})
			h, ok := parseHash(id)
			if !ok {
				return false, errWalkBatch
			}
			if !first && (cached(h) || !bytes.Contains(raw, []byte("\n    Uwf-Thread: "))) {
				return false, nil
			}
			commit, err := gitobj.ParseCommit(raw)
			if err != nil {
				return false, errWalkBatch
			}
			first = false
			w.last = commit
			return each(&batchCommit{id: h, commit: commit}), nil
		}
		err := r.Git.Stream(ctx, nil, w, nil, "--no-replace-objects", "rev-list", "--first-parent", "--header", "--max-count="+strconv.Itoa(page), next.String())
		cancel()
		switch {
		case w.err != nil:
			return w.err
		case w.stopped:
			return nil
		case err != nil:
			return fmt.Errorf("%w: %w", errWalkBatch, err)
		case len(w.buf) > 0:
			return errWalkBatch // a record without its NUL
		}
		if w.n < page || w.last == nil || len(w.last.ParentHashes) == 0 {
			return nil
		}
		next = w.last.ParentHashes[0]
	}
}

// revListWriter splits rev-list's output into NUL-terminated records as
// it is written, and hands each to record. When record returns false or
// an error, the writer stops rev-list (through stop) and takes no more.
type revListWriter struct {
	buf     []byte
	record  func(rec []byte) (more bool, err error)
	stop    func()
	n       int            // records read
	last    *gitobj.Commit // the last commit handed on
	stopped bool           // record asked to stop
	err     error          // record's error
}

var errRevListStopped = errors.New("rev-list: stopped")

func (w *revListWriter) Write(p []byte) (int, error) {
	if w.stopped || w.err != nil {
		return 0, errRevListStopped
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, 0)
		if i < 0 {
			return len(p), nil
		}
		// The records are not copied: what is kept of them is parsed
		// out, and w.buf is only ever resliced or grown.
		rec := w.buf[:i]
		w.buf = w.buf[i+1:]
		more, err := w.record(rec)
		if err != nil || !more {
			w.err, w.stopped = err, err == nil
			w.stop()
			return 0, errRevListStopped
		}
	}
}
