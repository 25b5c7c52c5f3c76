package chain

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/git-uwf/git-uwf/internal/gitcli"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Deriving many summaries at once (a cold `thread list`) reads each head's
// commit, root tree, node, start node and, for a step, its output through
// one `git cat-file --batch` process, in rounds over chunks of threads,
// instead of one go-git object read at a time. The objects read and the
// rules applied are those of ThreadAt and headState; any thread this path
// does not handle cheaply (transition workflows, which route on the whole
// chain; an unexpected tree; a missing object) is derived the usual way.

const (
	// listBatchMin is the fewest summaries worth a cat-file process.
	listBatchMin = 32
	// batchChunk bounds how many threads are in flight (and in memory).
	batchChunk = 512
)

// headRead is one thread on its way through the batch rounds.
type headRead struct {
	id    ThreadID
	key   cacheKey
	entry *Entry
	root  *object.Tree
	start plumbing.Hash
	wf    plumbing.Hash
	t     *Thread
	out   *cachedSummary
}

// summarizeMany derives the summaries of ids (without the running
// overlay), keyed as in keys, through a cat-file process when there are at
// least minBatch of them.
func (r *Repo) summarizeMany(ctx context.Context, ids []ThreadID, keys map[ThreadID]cacheKey, minBatch int) map[ThreadID]cachedSummary {
	out := make(map[ThreadID]cachedSummary, len(ids))
	var b *gitcli.Batch
	if len(ids) >= minBatch {
		b, _ = r.Git.NewBatch(ctx) // on failure every thread takes the usual path
	}
	if b != nil {
		defer b.Close()
	}
	for start := 0; start < len(ids) && ctx.Err() == nil; start += batchChunk {
		chunk := ids[start:min(start+batchChunk, len(ids))]
		var done map[ThreadID]cachedSummary
		if b != nil {
			var err error
			if done, err = r.summarizeChunk(ctx, b, chunk, keys); err != nil {
				b.Close()
				b, done = nil, nil
			}
		}
		for _, id := range chunk {
			if c, ok := done[id]; ok {
				out[id] = c
			} else {
				out[id] = r.summarizeHead(ctx, id, keys[id])
			}
		}
	}
	return out
}

// summarizeChunk derives what it can of chunk through b. Threads missing
// from the result take the usual path. An error means b is unusable.
func (r *Repo) summarizeChunk(ctx context.Context, b *gitcli.Batch, chunk []ThreadID, keys map[ThreadID]cacheKey) (map[ThreadID]cachedSummary, error) {
	reads := make([]*headRead, 0, len(chunk))
	for _, id := range chunk {
		if k := keys[id]; !k.head.IsZero() {
			reads = append(reads, &headRead{id: id, key: k})
		}
	}
	// Round 1: head commits.
	err := batchRound(b, reads, func(h *headRead) []string { return []string{h.key.head.String()} },
		func(h *headRead, objs []gitcli.Object) bool {
			c, ok := decodeCommit(objs[0])
			if !ok {
				return false
			}
			h.entry = &Entry{Commit: h.key.head, Tree: c.TreeHash, Time: c.Committer.When}
			if len(c.ParentHashes) > 0 {
				h.entry.Parent = c.ParentHashes[0]
			}
			return true
		})
	if err != nil {
		return nil, err
	}
	// Round 2: root trees.
	reads = live(reads)
	err = batchRound(b, reads, func(h *headRead) []string { return []string{h.entry.Tree.String()} },
		func(h *headRead, objs []gitcli.Object) bool {
			t, ok := decodeTree(objs[0])
			if !ok {
				return false
			}
			h.root = t
			node, start, wf := treeHash(t, "node", false), treeHash(t, "start", false), treeHash(t, "workflow", true)
			if node.IsZero() || start.IsZero() || wf.IsZero() {
				return false // let the usual path word the error
			}
			h.start, h.wf = start, wf
			return true
		})
	if err != nil {
		return nil, err
	}
	// Round 3: the head's node and the start node.
	reads = live(reads)
	err = batchRound(b, reads, func(h *headRead) []string {
		return []string{treeHash(h.root, "node", false).String(), h.start.String()}
	}, func(h *headRead, objs []gitcli.Object) bool {
		return r.decodeHead(ctx, h, objs[0], objs[1])
	})
	if err != nil {
		return nil, err
	}
	// Round 4: outputs of step heads (status-map workflows route on the
	// head step alone).
	reads = live(reads)
	var steps []*headRead
	for _, h := range reads {
		if h.t.Head.Kind == KindStep {
			steps = append(steps, h)
			continue
		}
		h.finish(r, moderator.RouteContext{Start: moderator.StartView{Workflow: h.t.Workflow.Name, Prompt: h.t.Start.Prompt}})
	}
	err = batchRound(b, steps, func(h *headRead) []string {
		return []string{h.entry.Tree.String() + ":nodes/" + string(h.t.Head.Step.Output)}
	}, func(h *headRead, objs []gitcli.Object) bool {
		if objs[0].Missing || objs[0].Type != "blob" {
			return false
		}
		n, err := objects.DecodeNode(objs[0].Data)
		if err != nil || n.Alias != h.t.Head.Step.Output {
			return false
		}
		var output map[string]any
		if err := json.Unmarshal(n.Payload, &output); err != nil || output == nil {
			output = map[string]any{}
		}
		s := h.t.Head.Step
		h.finish(r, moderator.RouteContext{
			Start: moderator.StartView{Workflow: h.t.Workflow.Name, Prompt: h.t.Start.Prompt},
			Steps: []moderator.StepView{{Role: s.Role, Output: output, Agent: s.Agent, EdgePrompt: s.EdgePrompt}},
		})
		return true
	})
	if err != nil {
		return nil, err
	}
	done := make(map[ThreadID]cachedSummary, len(chunk))
	for _, h := range reads {
		if h.out != nil {
			done[h.id] = *h.out
		}
	}
	return done, nil
}

// finish routes a decoded head and records its summary.
func (h *headRead) finish(r *Repo, rc moderator.RouteContext) {
	var st State
	if h.t.Head.Kind == KindCancel {
		st = State{Status: StatusCancelled}
	} else {
		st = r.routedState(h.t, rc, h.key.attempts)
	}
	h.out = &cachedSummary{key: h.key, sum: summaryOf(h.t, st)}
}

// decodeHead builds the thread from its head node and start node, as
// Entry and ThreadAt do. False leaves the thread to the usual path.
func (r *Repo) decodeHead(ctx context.Context, h *headRead, nodeObj, startObj gitcli.Object) bool {
	if nodeObj.Missing || nodeObj.Type != "blob" || startObj.Missing || startObj.Type != "blob" {
		return false
	}
	n, err := objects.DecodeNode(nodeObj.Data)
	if err != nil {
		return false
	}
	n.OID = plumbing.NewHash(nodeObj.OID)
	e := h.entry
	e.Node = n
	if r.decodeNode(e) != nil {
		return false
	}
	start, err := objects.DecodeNode(startObj.Data)
	if err != nil {
		return false
	}
	t := &Thread{ID: h.id, Head: e, StartAlias: start.Alias}
	if err := start.Decode(&t.Start); err != nil {
		return false
	}
	if t.Workflow, err = r.loadWorkflowTree(ctx, h.wf); err != nil {
		return false
	}
	if t.Workflow.Workflow.Form == moderator.Transitions && e.Kind != KindCancel {
		return false // conditions see the whole chain
	}
	h.t = t
	return true
}

// batchRound asks b for names(h) of every h in reads and hands each its
// answers; a thread whose use returns false is dropped (left to the usual
// path).
func batchRound(b *gitcli.Batch, reads []*headRead, names func(*headRead) []string, use func(*headRead, []gitcli.Object) bool) error {
	if len(reads) == 0 {
		return nil
	}
	var ask []string
	counts := make([]int, len(reads))
	for i, h := range reads {
		n := names(h)
		counts[i] = len(n)
		ask = append(ask, n...)
	}
	objs, err := b.Get(ask)
	if err != nil {
		return fmt.Errorf("read thread heads: %w", err)
	}
	for i, h := range reads {
		if !use(h, objs[:counts[i]]) {
			h.id = "" // dropped
		}
		objs = objs[counts[i]:]
	}
	return nil
}

// live keeps the reads still in play.
func live(reads []*headRead) []*headRead {
	out := reads[:0]
	for _, h := range reads {
		if h.id != "" {
			out = append(out, h)
		}
	}
	return out
}

func decodeCommit(o gitcli.Object) (*object.Commit, bool) {
	if o.Missing || o.Type != "commit" {
		return nil, false
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(plumbing.CommitObject)
	if _, err := mo.Write(o.Data); err != nil {
		return nil, false
	}
	c := &object.Commit{}
	if err := c.Decode(mo); err != nil {
		return nil, false
	}
	return c, true
}

func decodeTree(o gitcli.Object) (*object.Tree, bool) {
	if o.Missing || o.Type != "tree" {
		return nil, false
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(plumbing.TreeObject)
	if _, err := mo.Write(o.Data); err != nil {
		return nil, false
	}
	t := &object.Tree{}
	if err := t.Decode(mo); err != nil {
		return nil, false
	}
	return t, true
}

// treeHash is the oid of a top-level entry of t: a file when dirMode is 0,
// a directory when dir; zero when absent.
func treeHash(t *object.Tree, name string, dir bool) plumbing.Hash {
	for _, e := range t.Entries {
		if e.Name != name {
			continue
		}
		if (e.Mode == filemode.Dir) != dir {
			return plumbing.ZeroHash
		}
		return e.Hash
	}
	return plumbing.ZeroHash
}
