package chain

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"runtime"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// Read-path fast path of List, not a cache: it keeps nothing between
// calls, so nothing invalidates it. It derives the summaries the summary
// cache (cache_summary.go) misses.

// Deriving many summaries at once (a cold `thread list`) reads each head's
// commit, root tree, node and start node, and for a step its output,
// through two object readers (list_objects.go: objects.ObjectReader in
// process, or long-lived `git cat-file` processes when the object
// database has alternates), instead of one object read at a time through
// the Repo. Threads go in chunks, each in four rounds: the head
// commits; their root trees and, for heads with a parent and no Uwf-Start
// trailer (start_trailer.go), the parent commits on the way to the start
// commit (list_starts.go; more rounds only for the chains that go on past
// a commit seen before); the head and start
// nodes (once when the head is the start; only the start node when the
// head commit states the thread's state in an Uwf-Next trailer,
// next_trailer.go); the outputs of the other step heads
// (<nodes tree>:<alias>). Objects
// are asked for by oid where the oid is known, since a path or a peel
// (<commit>^{tree}) makes git read the objects along it again. The rounds
// of successive chunks are pipelined: while Go decodes one round of a
// chunk, the readers already read the rounds asked for before it (later
// chunks' commits, earlier chunks' nodes or outputs), and with more than
// one CPU two readers take alternate chunks. The pure per-object work
// (parsing commits and trees, checking and decoding nodes and outputs)
// runs on each reader's goroutine as its answers arrive; what
// needs the Repo (workflows, routing, the usual path) stays on the caller's. The objects read and the
// rules applied are those of ThreadAt and headState; any thread this path
// does not handle cheaply (transition workflows, which route on the whole
// chain; an unexpected tree; a missing or damaged object) is derived the
// usual way.

const (
	// listBatchMin is the fewest summaries worth starting the readers.
	listBatchMin = 32
	// batchChunk bounds how many threads are in flight (and in memory):
	// each of the five stages below holds at most one chunk. What is in
	// flight is live for the collector, which a cold listing runs at its
	// memory limit: chunks of 256 rather than 512 threads took a 10,000
	// thread listing from nine collections to seven, and 6,030 page faults
	// to 5,730.
	batchChunk = 256
)

// headRead is one thread on its way through the batch rounds. The reads
// of a chunk are allocated together, and each holds its entry, thread,
// summary and first commits walked, rather than allocating each: a cold
// listing of 10,000 threads made some 50,000 allocations fewer so.
type headRead struct {
	id      ThreadID // "" once left to the usual path
	chunkAt int      // the index of id in its flight's chunk
	key     cacheKey
	entry   Entry
	root    rootEntries
	t       *Thread // &thread once decoded
	// next is the head commit's Uwf-Next claim and node its Uwf-Node
	// alias, when nextClaimed: the head node, the nodes/ tree and the
	// output are then not read (next_trailer.go).
	next        nextClaim
	node        objects.Alias
	nextClaimed bool
	thread      Thread
	out         cachedSummary
	done        bool // out is the summary
	start       startInfo
	// On the walk to the start commit: the commits walked so far (in
	// pathBuf while they fit), and the next one to read.
	path    []gitobj.Hash
	pathBuf [2]gitobj.Hash
	at      gitobj.Hash
}

// flight is one chunk of threads on its way through the batch rounds.
type flight struct {
	b     objectAsker // the reader of this chunk
	first int         // the index of chunk[0] in the listing's ids
	chunk []ThreadID
	keys  []cacheKey // of each of chunk
	// bufs holds the reads (which reads points at) and the decoded nodes;
	// cleared and used again for a later chunk once this one is settled.
	bufs    flightBufs
	reads   []*headRead
	commits pendingObjects // head commit of each read
	trees   pendingObjects // root tree of each read left
	walking []*headRead    // reads on their way to the start commit, in the order of parents
	parents pendingObjects // the commit each of walking is at
	nodes   pendingObjects // head node, and start node unless the same
	steps   []*headRead    // reads whose head is a step, in the order of outs
	outs    pendingObjects // the output of each of steps
	err     error          // the batch broke: every thread takes the usual path

	// What the cat-file reader parsed of each answer of commits, trees,
	// nodes and outs, as it read them: parsing runs beside the decoding of
	// earlier answers. Valid once the Pending's Wait returned no error.
	commitsRead []parsedCommit
	parentsRead []parsedCommit
	treesRead   []parsedTree
	nodesRead   []decodedNode
	outsRead    []decodedOutput
}

// flightBufs are the arrays of a flight that later flights use again.
type flightBufs struct {
	reads []headRead    // zeroed, of a cap of at least the chunk
	nodes []decodedNode // zeroed, of a cap of at least two per thread
}

type parsedCommit struct {
	c  commitHead
	ok bool
}

type parsedTree struct {
	root rootEntries
	ok   bool
}

type decodedNode struct {
	n   objects.Node
	err error
}

// decodedOutput is an output node and its payload as a map; ok is false
// when the answer is not a node.
type decodedOutput struct {
	alias  objects.Alias
	output map[string]any
	ok     bool
}

// decodeNodeObject decodes a node blob as decodeHead needs it.
func decodeNodeObject(o gitrepo.Object) decodedNode {
	if o.Missing || o.Type != "blob" {
		return decodedNode{err: errNotBlob}
	}
	n, err := objects.DecodeNode(o.Data)
	return decodedNode{n: n, err: err}
}

var errNotBlob = errors.New("not a blob")

// decodeOutputObject decodes an output node as finishStep needs it: the
// payload as encoding/json gives it, {} when it is not an object.
func decodeOutputObject(o gitrepo.Object) decodedOutput {
	if o.Missing || o.Type != "blob" {
		return decodedOutput{}
	}
	n, err := objects.DecodeNode(o.Data)
	if err != nil {
		return decodedOutput{}
	}
	output, ok := decodeFlatObject(n.Payload)
	if !ok {
		output = nil
		if err := json.Unmarshal(n.Payload, &output); err != nil || output == nil {
			output = map[string]any{}
		}
	}
	return decodedOutput{alias: n.Alias, output: output, ok: true}
}

// summarizeMany derives the summaries of ids (without the running
// overlay), the i'th keyed by keys[i], through a cat-file process when
// there are at least minBatch of them, and hands each to emit with its
// index in ids as it is settled (once per id unless ctx is done), so that
// they are kept only where the caller keeps them.
//
// starts knows the start commits of some commits (see list_starts.go) and
// learns those of the commits walked.
func (r *Repo) summarizeMany(ctx context.Context, ids []ThreadID, keys []cacheKey, starts *startCommits, minBatch int, emit func(int, cachedSummary)) {
	usual := func(i int) cachedSummary { return r.summarizeHead(ctx, ids[i], keys[i], starts) }
	r.summarizeChunks(ctx, ids, keys, starts, minBatch, batchChunk, usual, emit)
}

// summarizeChunks is summarizeMany with chunks of chunk threads.
//
// usual derives the summary of the i'th thread when the batch path does
// not settle it.
func (r *Repo) summarizeChunks(ctx context.Context, ids []ThreadID, keys []cacheKey, starts *startCommits, minBatch, chunk int,
	usual func(int) cachedSummary, emit func(int, cachedSummary)) {
	var flights []*flight
	for start := 0; start < len(ids); start += chunk {
		end := min(start+chunk, len(ids))
		flights = append(flights, &flight{first: start, chunk: ids[start:end], keys: keys[start:end]})
	}
	var batches []objectAsker
	if len(ids) >= minBatch {
		// Reading objects costs about as much as decoding them: with more
		// than one CPU, two readers take alternate chunks.
		n := 1
		if len(flights) > 1 && runtime.NumCPU() > 1 {
			n = 2
		}
		batches = r.newObjectAskers(ctx, n) // none: every thread takes the usual path
	}
	if len(batches) == 0 {
		for i := range ids {
			if ctx.Err() != nil {
				break
			}
			emit(i, usual(i))
		}
		return
	}
	for _, b := range batches {
		defer b.Close()
	}
	for j, f := range flights {
		f.b = batches[j%len(batches)]
	}
	// The rounds of a chunk are stages; step i runs stage s on chunk i-s,
	// so each stage waits for answers asked for at least one step earlier,
	// with later requests queued behind them for git to work on meanwhile.
	//
	// A settled chunk's reads and nodes are cleared and serve a later
	// chunk: at most one chunk per stage is in flight, so a listing
	// allocates five of each array rather than one per chunk, each of
	// which cost its pages' faults anew.
	var spare []flightBufs
	stages := []func(*flight){
		func(f *flight) {
			if n := len(spare); n > 0 {
				f.bufs, spare = spare[n-1], spare[:n-1]
				clear(f.bufs.reads)
				clear(f.bufs.nodes)
			}
			askCommits(f.b, f)
		},
		func(f *flight) { askTrees(f.b, f, starts) },
		func(f *flight) { walkToStarts(f, starts); askNodes(f.b, f) },
		func(f *flight) { r.decodeHeads(ctx, f.b, f) },
		func(f *flight) {
			r.settle(ctx, f, emit, usual)
			// Only a flight that went through without an error gives
			// its arrays back: every ask it made was then waited for,
			// so no reader writes into them any more.
			if f.err == nil {
				spare = append(spare, f.bufs)
			}
		},
	}
	for i := 0; i < len(flights)+len(stages)-1 && ctx.Err() == nil; i++ {
		for s, stage := range stages {
			if j := i - s; j >= 0 && j < len(flights) {
				stage(flights[j])
			}
		}
		if j := i - len(stages) + 1; j >= 0 && j < len(flights) {
			flights[j] = nil // let its objects go
		}
	}
}

// askCommits starts a chunk: it asks b for the head commit of each thread
// with a head. The reads go in f.bufs.reads when it has room (zeroed),
// else in a new array.
func askCommits(b objectAsker, f *flight) {
	f.reads = make([]*headRead, 0, len(f.chunk))
	if cap(f.bufs.reads) < len(f.chunk) {
		f.bufs.reads = make([]headRead, len(f.chunk))
	}
	reads := f.bufs.reads[:0] // never grown: f.reads points into it
	names := newNameList(len(f.chunk))
	for i, id := range f.chunk {
		k := f.keys[i]
		if k.head.IsZero() {
			continue
		}
		// Set in place: the zeroed slice needs no copy of a whole read.
		reads = reads[:len(reads)+1]
		h := &reads[len(reads)-1]
		h.id, h.chunkAt, h.key = id, i, k
		f.reads = append(f.reads, h)
		names.add(k.head, "")
	}
	f.commitsRead = make([]parsedCommit, len(f.reads))
	f.commits = b.AskEach(names, func(i int, o gitrepo.Object) {
		c, ok := parseCommit(o)
		f.commitsRead[i] = parsedCommit{c, ok}
	})
}

// askTrees reads f's commits and asks b for their root trees, then for
// the parents of the heads whose start commit starts does not know.
func askTrees(b objectAsker, f *flight, starts *startCommits) {
	if _, err := f.commits.Wait(); err != nil {
		f.err = err
		return
	}
	names := newNameList(len(f.reads))
	for i, h := range f.reads {
		c, ok := f.commitsRead[i].c, f.commitsRead[i].ok
		if !ok || !c.thread {
			h.id = "" // left to the usual path
			continue
		}
		e := &h.entry
		e.Commit, e.Tree, e.Parent, e.Time = h.key.head, c.tree, c.parent, c.when
		h.next, h.node, h.nextClaimed = c.next, c.node, c.nextClaimed
		names.add(c.tree, "")
		h.path = append(h.pathBuf[:0], h.key.head)
		h.walk(c, starts)
		if h.path != nil {
			f.walking = append(f.walking, h)
		}
	}
	f.commitsRead = nil
	f.treesRead = make([]parsedTree, names.len())
	f.trees = b.AskEach(names, func(i int, o gitrepo.Object) {
		root, ok := parseRootTree(o)
		f.treesRead[i] = parsedTree{root, ok}
	})
	askParents(b, f)
}

// walk takes h one commit further on its way to its start commit: c is
// the commit at the end of h.path. When the start is found (c has no
// parent, c's Uwf-Start trailer names it, or starts knows c's parent),
// h.start is set and h.path is nil; otherwise h.at is the next commit to
// read.
func (h *headRead) walk(c commitHead, starts *startCommits) {
	var st startInfo
	at := h.path[len(h.path)-1]
	if c.parents == 0 {
		st = startInfo{commit: at, branch: c.branch}
	} else if c.claimed && c.start.commit != at {
		st = c.start
	} else if known, ok := starts.lookup(c.parent); ok {
		st = known
	} else {
		h.at = c.parent
		return
	}
	starts.record(st, h.path...)
	h.start, h.path = st, nil
}

// askParents asks b for the commit each of f.walking is at.
func askParents(b objectAsker, f *flight) {
	if len(f.walking) == 0 {
		return
	}
	names := newNameList(len(f.walking))
	for _, h := range f.walking {
		names.add(h.at, "")
	}
	f.parentsRead = make([]parsedCommit, len(f.walking))
	f.parents = b.AskEach(names, func(i int, o gitrepo.Object) {
		c, ok := parseCommit(o)
		f.parentsRead[i] = parsedCommit{c, ok}
	})
}

// walkToStarts reads the parents askTrees asked for and walks on, one
// round of reads per commit, until every read in f has its start commit.
// A read whose walk meets an unexpected commit is left to the usual path.
func walkToStarts(f *flight, starts *startCommits) {
	for f.err == nil && len(f.walking) > 0 {
		if _, err := f.parents.Wait(); err != nil {
			f.err = err
			return
		}
		walking := f.walking[:0]
		for i, h := range f.walking {
			if h.id == "" {
				continue
			}
			c, ok := f.parentsRead[i].c, f.parentsRead[i].ok
			if !ok || !c.thread {
				h.id = ""
				continue
			}
			h.path = append(h.path, h.at)
			if h.walk(c, starts); h.path != nil {
				walking = append(walking, h)
			}
		}
		f.walking = walking
		askParents(f.b, f)
	}
	f.walking, f.parentsRead = nil, nil
}

// askNodes reads f's root trees and asks b for the head and start nodes
// they name.
func askNodes(b objectAsker, f *flight) {
	if f.err != nil {
		return
	}
	if _, err := f.trees.Wait(); err != nil {
		f.err = err
		return
	}
	trees := f.treesRead
	names := newNameList(2 * len(f.reads))
	for _, h := range f.reads {
		if h.id == "" {
			continue
		}
		root, ok := trees[0].root, trees[0].ok
		trees = trees[1:]
		if !ok || root.node.IsZero() || root.start.IsZero() || root.workflow.IsZero() {
			h.id = "" // let the usual path word the error
			continue
		}
		h.root = root
		if !h.nextClaimed {
			names.add(root.node, "")
		}
		if h.nextClaimed || root.start != root.node {
			names.add(root.start, "")
		}
	}
	f.treesRead = nil
	if cap(f.bufs.nodes) < names.len() {
		f.bufs.nodes = make([]decodedNode, 2*len(f.chunk))
	}
	f.nodesRead = f.bufs.nodes[:names.len()]
	f.nodes = b.AskEach(names, func(i int, o gitrepo.Object) { f.nodesRead[i] = decodeNodeObject(o) })
}

// decodeHeads reads and decodes f's nodes, routes the threads that need
// no output, and asks b for the outputs of the others.
func (r *Repo) decodeHeads(ctx context.Context, b objectAsker, f *flight) {
	if f.err != nil {
		return
	}
	if _, err := f.nodes.Wait(); err != nil {
		f.err = err
		return
	}
	objs := f.nodesRead
	for _, h := range f.reads {
		if h.id == "" {
			continue
		}
		if h.nextClaimed {
			start := objs[0]
			objs = objs[1:]
			if !r.decodeClaimedHead(ctx, h, start) {
				h.id = ""
			}
			continue
		}
		node, start := objs[0], objs[0]
		objs = objs[1:]
		if h.root.start != h.root.node {
			start, objs = objs[0], objs[1:]
		}
		if !r.decodeHead(ctx, h, node, start) {
			h.id = ""
			continue
		}
		if h.t.Head.Kind == KindStep {
			if h.root.nodes.IsZero() {
				h.id = ""
				continue
			}
			// Status-map workflows route on the head step alone.
			f.steps = append(f.steps, h)
			continue
		}
		h.finish(r, moderator.RouteContext{Start: moderator.StartView{Workflow: h.t.Workflow.Name, Prompt: h.t.Start.Prompt}})
	}
	names := newNameList(len(f.steps))
	for _, h := range f.steps {
		names.add(h.root.nodes, string(h.t.Head.Step.Output))
	}
	f.nodesRead = nil
	f.outsRead = make([]decodedOutput, len(f.steps))
	f.outs = b.AskEach(names, func(i int, o gitrepo.Object) { f.outsRead[i] = decodeOutputObject(o) })
}

// settle reads f's outputs, routes the step heads and hands every summary
// of f's chunk to emit, deriving the usual way what the batch did not.
func (r *Repo) settle(ctx context.Context, f *flight, emit func(int, cachedSummary), usual func(int) cachedSummary) {
	if f.err == nil {
		if _, err := f.outs.Wait(); err != nil {
			f.err = err
		} else {
			for i, h := range f.steps {
				if !h.finishStep(r, f.outsRead[i]) {
					h.id = ""
				}
			}
		}
	}
	settled := make([]*headRead, len(f.chunk))
	for _, h := range f.reads {
		settled[h.chunkAt] = h
	}
	for i := range f.chunk {
		h := settled[i]
		switch {
		case f.err == nil && h != nil && h.id != "" && h.done:
			emit(f.first+i, h.out)
		case ctx.Err() == nil:
			emit(f.first+i, usual(f.first+i))
		}
	}
}

// finishStep routes a step head on its output. False leaves the thread to
// the usual path.
func (h *headRead) finishStep(r *Repo, o decodedOutput) bool {
	if !o.ok || o.alias != h.t.Head.Step.Output {
		return false
	}
	s := h.t.Head.Step
	h.finish(r, moderator.RouteContext{
		Start: moderator.StartView{Workflow: h.t.Workflow.Name, Prompt: h.t.Start.Prompt},
		Steps: []moderator.StepView{{Role: s.Role, Output: o.output, Agent: s.Agent, EdgePrompt: s.EdgePrompt}},
	})
	return true
}

// finish routes a decoded head and records its summary.
func (h *headRead) finish(r *Repo, rc moderator.RouteContext) {
	var st State
	if h.t.Head.Kind == KindCancel {
		st = State{Status: StatusCancelled}
	} else {
		st = r.routedState(h.t, rc, h.key.attempts)
	}
	h.out, h.done = cachedSummary{key: h.key, sum: summaryOf(h.t, st, h.start)}, true
}

// decodeHead builds the thread from its head node and start node, as
// Entry and ThreadAt do. False leaves the thread to the usual path.
func (r *Repo) decodeHead(ctx context.Context, h *headRead, node, startNode decodedNode) bool {
	if node.err != nil || startNode.err != nil {
		return false
	}
	n := node.n
	n.OID = h.root.node
	e := &h.entry
	e.Node = n
	if r.decodeNode(e) != nil {
		return false
	}
	h.thread = Thread{ID: h.id, Head: e}
	t := &h.thread
	if h.root.start == h.root.node && e.Kind == KindStart {
		// A thread at its start: the head is the start node.
		t.StartAlias, t.Start = n.Alias, *e.Start
	} else if !setStart(t, startNode.n) {
		return false
	}
	if !r.pinWorkflow(ctx, t, h.root.workflow) {
		return false
	}
	if t.Workflow.Workflow.Form == moderator.Transitions && e.Kind != KindCancel {
		return false // conditions see the whole chain
	}
	if t.Workflow.Workflow.UsesBody() && e.Kind == KindStep {
		return false // version 1 templates read the head step's body (_body)
	}
	h.t = t
	return true
}

// decodeClaimedHead builds the thread of a head commit with an Uwf-Next
// claim from its start node and the claim, and records its summary: the
// head's kind, alias and state are what the head commit's trailers say.
// False leaves the thread to the usual path.
func (r *Repo) decodeClaimedHead(ctx context.Context, h *headRead, startNode decodedNode) bool {
	if startNode.err != nil {
		return false
	}
	e := &h.entry
	e.Kind = KindStep
	if h.next.status == StatusCancelled {
		e.Kind = KindCancel
	}
	e.Node = objects.Node{OID: h.root.node, Alias: h.node}
	h.thread = Thread{ID: h.id, Head: e}
	t := &h.thread
	if !setStart(t, startNode.n) || !r.pinWorkflow(ctx, t, h.root.workflow) {
		return false
	}
	if e.Kind != KindCancel && !claimsHead(t.Workflow.Workflow) {
		return false // not a claim git-uwf writes: route the usual way
	}
	h.t = t
	st := r.withAttempts(t, h.next.state(), h.key.attempts)
	h.out, h.done = cachedSummary{key: h.key, sum: summaryOf(t, st, h.start)}, true
	return true
}

// setStart decodes start as t's start node; false when it is not one.
func setStart(t *Thread, start objects.Node) bool {
	t.StartAlias = start.Alias
	return decodeStartNode(start, &t.Start) == nil
}

// pinWorkflow loads the workflow tree t's head pins; false when it
// cannot.
func (r *Repo) pinWorkflow(ctx context.Context, t *Thread, tree gitobj.Hash) bool {
	w, err := r.loadWorkflowTree(ctx, tree)
	t.Workflow = w
	return err == nil
}

// nameList names the objects of one ask: each by its oid, and some by a
// path in that tree or commit's tree ("<oid>:<path>" to git cat-file).
// The in-process reader takes the oids as they are; names are formatted
// only for a cat-file process.
type nameList struct {
	oids  []gitobj.Hash
	paths []string // "" for the object itself; nil until a path is added
}

// newNameList makes room for n names.
func newNameList(n int) nameList {
	return nameList{oids: make([]gitobj.Hash, 0, n)}
}

// add appends h, or the object at path in tree (or commit) h when path is
// not "".
func (l *nameList) add(h gitobj.Hash, path string) {
	if path != "" && l.paths == nil {
		l.paths = make([]string, len(l.oids), cap(l.oids))
	}
	l.oids = append(l.oids, h)
	if l.paths != nil {
		l.paths = append(l.paths, path)
	}
}

func (l *nameList) len() int { return len(l.oids) }

// path returns the path of the i'th name, "" when it names its oid's
// object.
func (l *nameList) path(i int) string {
	if l.paths == nil {
		return ""
	}
	return l.paths[i]
}

// strings formats the names as git cat-file reads them, in one buffer
// rather than a string per name.
func (l *nameList) strings() []string {
	var buf []byte
	ends := make([]int, len(l.oids))
	for i, h := range l.oids {
		buf = hex.AppendEncode(buf, h[:])
		if p := l.path(i); p != "" {
			buf = append(append(buf, ':'), p...)
		}
		ends[i] = len(buf)
	}
	all := string(buf)
	out := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		out[i], start = all[start:end], end
	}
	return out
}
