package chain

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// Reading a thread: its head, one entry, the chain from the root, and the
// nodes a step references. Chain walks go through the entry cache
// (cache_entries.go) when it has the commits.

// Thread reads a thread at its current head.
func (r *Repo) Thread(ctx context.Context, id ThreadID) (*Thread, error) {
	head, err := r.resolveRef(id.Ref())
	if err != nil {
		return nil, err
	}
	if head.IsZero() {
		return nil, fmt.Errorf("thread %s: %w", id, ErrUnknownThread)
	}
	return r.ThreadAt(ctx, id, head)
}

// ThreadAt reads a thread as of a given head commit.
func (r *Repo) ThreadAt(ctx context.Context, id ThreadID, head gitobj.Hash) (*Thread, error) {
	e, root, err := r.entryWithTree(head)
	if err != nil {
		return nil, fmt.Errorf("thread %s: %w", id, err)
	}
	t := &Thread{ID: id, Head: e}
	startOID := topEntry(root, "start")
	if !startOID.IsZero() {
		r.rememberStart(head, startOID)
	}
	startNode, err := r.Store.GetOID(startOID)
	if err != nil {
		return nil, fmt.Errorf("thread %s: start node: %w", id, err)
	}
	t.StartAlias = startNode.Alias
	if err := startNode.Decode(&t.Start); err != nil {
		return nil, fmt.Errorf("thread %s: decode start node: %w", id, err)
	}
	if t.Workflow, err = r.loadWorkflowTree(ctx, topEntry(root, "workflow")); err != nil {
		return nil, fmt.Errorf("thread %s: %w", id, err)
	}
	return t, nil
}

// Entry reads one thread commit.
func (r *Repo) Entry(ctx context.Context, commit gitobj.Hash) (*Entry, error) {
	e, _, err := r.entryWithTree(commit)
	return e, err
}

// entryWithTree is Entry, also returning the commit's tree.
func (r *Repo) entryWithTree(commit gitobj.Hash) (*Entry, *gitobj.Tree, error) {
	s := r.Store.Storer()
	c, err := gitobj.GetCommit(s, commit)
	if err != nil {
		return nil, nil, fmt.Errorf("read commit %s: %w", commit, err)
	}
	e := &Entry{Commit: commit, Tree: c.TreeHash, Time: c.Committer.When}
	if len(c.ParentHashes) > 0 {
		e.Parent = c.ParentHashes[0]
	}
	root, err := gitobj.GetTree(s, c.TreeHash)
	if err != nil {
		return nil, nil, fmt.Errorf("read tree %s: %w", c.TreeHash, err)
	}
	nodeOID := topEntry(root, "node")
	if nodeOID.IsZero() {
		return nil, nil, fmt.Errorf("commit %s is not a git-uwf thread commit (no node in its tree)", commit)
	}
	if e.Node, err = r.Store.GetOID(nodeOID); err != nil {
		return nil, nil, fmt.Errorf("commit %s: %w", commit, err)
	}
	if err := r.decodeNode(e); err != nil {
		return nil, nil, err
	}
	return e, root, nil
}

// decodeNode sets the kind and the decoded node of an entry from e.Node.
func (r *Repo) decodeNode(e *Entry) error {
	if err := r.setKind(e); err != nil {
		return err
	}
	return decodePayload(e)
}

// setKind sets the kind of an entry from the type of e.Node.
func (r *Repo) setKind(e *Entry) error {
	title, err := r.schemaTitle(e.Node.Type)
	if err != nil {
		return err
	}
	switch title {
	case "uwf.StartNode":
		e.Kind = KindStart
	case "uwf.StepNode":
		e.Kind = KindStep
	case "uwf.CancelNode":
		e.Kind = KindCancel
	default:
		return fmt.Errorf("commit %s holds a %q node, not a thread node", e.Commit, title)
	}
	return nil
}

// decodePayload decodes the node of an entry whose kind is set, unless it
// is decoded already.
func decodePayload(e *Entry) error {
	var err error
	switch {
	case e.Start != nil || e.Step != nil || e.Cancel != nil:
		return nil
	case e.Kind == KindStart:
		e.Start = &StartNode{}
		err = decodeStartNode(e.Node, e.Start)
	case e.Kind == KindStep:
		e.Step = &StepNode{}
		err = decodeStepNode(e.Node, e.Step)
	case e.Kind == KindCancel:
		e.Cancel = &CancelNode{}
		err = decodeCancelNode(e.Node, e.Cancel)
	}
	if err != nil {
		e.Start, e.Step, e.Cancel = nil, nil, nil
		return fmt.Errorf("commit %s: decode %s node: %w", e.Commit, e.Kind, err)
	}
	return nil
}

func (r *Repo) schemaTitle(a objects.Alias) (string, error) {
	if title := builtinTitle(a); title != "" {
		return title, nil
	}
	schema, err := r.Store.Schema(a)
	if err != nil {
		return "", err
	}
	t, _ := schema["title"].(string)
	return t, nil
}

// Chain returns the thread's entries from the root to head.
func (r *Repo) Chain(ctx context.Context, head gitobj.Hash) ([]*Entry, error) {
	return r.chain(ctx, head, true)
}

// chain is Chain; unless decode is set, entries that come from the entry
// cache have their kind but not yet their node decoded (decodePayload does
// that), for callers that look at a few of them only.
func (r *Repo) chain(ctx context.Context, head gitobj.Hash, decode bool) ([]*Entry, error) {
	entries, wait, err := r.chainCaching(ctx, head, decode)
	wait()
	return entries, err
}

// chainCaching is chain, writing the records it read from git to the
// entry cache while the caller goes on: the caller must call wait
// (always non-nil) before it returns, which waits for the write. Only
// the cache files and the shard are touched meanwhile, never the entries.
func (r *Repo) chainCaching(ctx context.Context, head gitobj.Hash, decode bool) (entries []*Entry, wait func(), err error) {
	wait = func() {}
	var (
		rev   []*Entry
		shard *entryShard
		start gitobj.Hash
		added []entryRecord
		zones zones
	)
	if !head.IsZero() {
		// Without a start node there is no cache file to use: the walk
		// below reports what is wrong with the commit.
		if s, err := r.startOf(head); err == nil {
			start, shard = s, r.shard(s)
		}
	}
	fromGit, batchAfter, batched := 0, r.entries.walkBatchAfter(), false
	localAfter, triedLocal := r.entries.walkLocalAfter(), false
	for c := head; !c.IsZero(); {
		if err := ctx.Err(); err != nil {
			return nil, wait, err
		}
		var e *Entry
		if rec, ok := shard.get(c); ok {
			var err error
			if e, err = r.entryFromRecord(rec, &zones, decode); err != nil {
				return nil, wait, err
			}
		} else if fromGit >= localAfter && shard != nil && !triedLocal {
			// Read the commits the cache misses from the packs and loose
			// objects directly (walk_batch_local.go).
			triedLocal = true
			cached := func(h gitobj.Hash) bool { _, ok := shard.get(h); return ok }
			es, recs, next, err := r.walkLocal(ctx, c, cached)
			if err != nil {
				if ctx.Err() != nil {
					return nil, wait, ctx.Err()
				}
				continue // one by one, then through git
			}
			rev, added = append(rev, es...), append(added, recs...)
			if rev[len(rev)-1].Kind == KindStart {
				break
			}
			c = next
			continue
		} else if fromGit >= batchAfter && shard != nil && !batched {
			// Many commits are missing: read the rest through git.
			batched = true
			cached := func(h gitobj.Hash) bool { _, ok := shard.get(h); return ok }
			es, recs, next, err := r.walkBatch(ctx, c, cached)
			if err != nil {
				if ctx.Err() != nil {
					return nil, wait, ctx.Err()
				}
				continue // read one by one instead
			}
			rev, added = append(rev, es...), append(added, recs...)
			if rev[len(rev)-1].Kind == KindStart {
				break
			}
			c = next
			continue
		} else {
			var root *gitobj.Tree
			var err error
			if e, root, err = r.entryWithTree(c); err != nil {
				return nil, wait, err
			}
			added = append(added, r.gitRecord(e, root))
			fromGit++
		}
		rev = append(rev, e)
		if e.Kind == KindStart {
			break
		}
		c = e.Parent
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if len(rev) == 0 || rev[0].Kind != KindStart {
		return nil, wait, fmt.Errorf("chain at %s does not start with a StartNode", head)
	}
	if len(added) == 0 {
		return rev, wait, nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.appendEntries(start, shard, added) // a cache that cannot be written only costs speed
	}()
	return rev, func() { <-done }, nil
}

// NodeInCommit reads a node introduced by (or pinned in) a commit's tree,
// falling back to the alias index.
func (r *Repo) NodeInCommit(e *Entry, a objects.Alias) (objects.Node, error) {
	s := r.Store.Storer()
	for _, dir := range []string{"nodes/", "workflow/nodes/"} {
		oid, err := treeEntry(s, e.Tree, dir+string(a))
		if err == nil && !oid.IsZero() {
			n, err := r.Store.GetOID(oid)
			if err == nil && n.Alias == a {
				return n, nil
			}
		}
	}
	return r.Store.Get(a)
}

// Output returns the decoded structured output of a step entry.
func (r *Repo) Output(e *Entry) (map[string]any, error) {
	if e.Step == nil {
		return map[string]any{"$status": "_"}, nil
	}
	payload := e.output
	if payload == nil {
		n, err := r.NodeInCommit(e, e.Step.Output)
		if err != nil {
			return nil, fmt.Errorf("output of step %s: %w", e.Node.Alias, err)
		}
		payload = n.Payload
	}
	var out map[string]any
	if err := json.Unmarshal(payload, &out); err != nil || out == nil {
		out = map[string]any{}
	}
	return out, nil
}

// Text returns the content of a text node referenced by a step (body, prompt).
func (r *Repo) Text(e *Entry, a objects.Alias) (string, error) {
	if a == "" {
		return "", nil
	}
	if e.body != nil && e.Step != nil && a == e.Step.Body {
		return decodeText(objects.Node{Alias: a, Payload: e.body})
	}
	n, err := r.NodeInCommit(e, a)
	if err != nil {
		return "", err
	}
	return decodeText(n)
}

func decodeText(n objects.Node) (string, error) {
	var text string
	if err := json.Unmarshal(n.Payload, &text); err != nil {
		return "", fmt.Errorf("node %s is not text: %w", n.Alias, err)
	}
	return text, nil
}
