package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"

	"github.com/git-uwf/git-uwf/internal/atomicfile"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// Read-path cache (derived; deleting it loses nothing): the threads/<id>
// hints naming a thread's start node and the workflows/<tree-oid> records
// of pinned workflows, so that CachedThread reads no object. Nothing needs
// invalidating: a hint is checked against the head's entry record, and a
// workflow record is named by its tree oid. A missing or damaged file is
// rebuilt from git.

// CachedThread is Thread for commands that only read a thread. When the
// entry cache holds the thread's head commit, the thread is built from its
// caches, without reading an object: the head entry and the start node
// from the entry cache, the pinned workflow from the workflow cache. The
// result is the one Thread gives.
//
// Two more derived files make that possible, both under
// $GIT_COMMON_DIR/uwf/cache:
//
//   - threads/<thread-id> names the start node of the thread, and so the
//     entry cache file to look in. It is only a hint: the head commit (the
//     ref's value) must have a record in that file naming that start node,
//     and a record is a function of its commit oid alone, so a wrong or
//     outdated hint just means the thread is read from git.
//   - workflows/<tree-oid> holds the workflow node and the role schema
//     nodes a pinned workflow tree holds; the tree oid names its content.
//
// A missing, damaged or foreign file is read from git again and rewritten.
func (r *Repo) CachedThread(ctx context.Context, id ThreadID) (*Thread, error) {
	head, err := r.resolveRef(id.Ref())
	if err != nil {
		return nil, err
	}
	if head.IsZero() {
		return nil, fmt.Errorf("thread %s: %w", id, ErrUnknownThread)
	}
	hint := r.threadHint(id)
	if !hint.IsZero() {
		if t := r.threadFromCache(ctx, id, head, hint); t != nil {
			return t, nil
		}
	}
	t, err := r.ThreadAt(ctx, id, head)
	if err != nil {
		return nil, err
	}
	// Failing to write a cache only costs the next read its speed.
	if start, err := treeEntry(r.Store.Storer(), t.Head.Tree, "start"); err == nil && !start.IsZero() && start != hint {
		_ = r.writeThreadHint(id, start)
	}
	if r.workflowFromCache(ctx, t.Workflow.Tree) == nil {
		_ = r.writeWorkflowCache(t.Workflow)
	}
	return t, nil
}

// threadFromCache builds the thread at head from the caches, or returns nil.
func (r *Repo) threadFromCache(ctx context.Context, id ThreadID, head, start gitobj.Hash) *Thread {
	shard := r.shard(start)
	rec, ok := shard.get(head)
	if !ok || rec.workflow.IsZero() || rec.start != start {
		return nil
	}
	startNode, ok := shard.node(start)
	if !ok {
		return nil
	}
	e, err := r.entryFromRecord(rec, &zones{}, true)
	if err != nil {
		return nil
	}
	r.rememberStart(head, start)
	t := &Thread{ID: id, Head: e, StartAlias: startNode.Alias}
	if err := decodeStartNode(startNode, &t.Start); err != nil {
		return nil
	}
	if t.Workflow = r.cachedWorkflow(ctx, rec.workflow); t.Workflow == nil {
		return nil
	}
	return t
}

// node returns the node whose blob is oid from any record of the shard.
func (s *entryShard) node(oid gitobj.Hash) (objects.Node, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range s.records.list {
		if rec.node.OID == oid {
			return rec.node, true
		}
	}
	return objects.Node{}, false
}

const (
	threadHintDir     = "threads"
	workflowCacheDir  = "workflows"
	workflowCacheHead = "uwf-workflow-cache 1\n"
)

func (r *Repo) threadHintPath(id ThreadID) string {
	return filepath.Join(r.UwfDir(), summaryCacheDir, threadHintDir, string(id))
}

// threadHint returns the start node oid recorded for a thread, or zero.
func (r *Repo) threadHint(id ThreadID) gitobj.Hash {
	data, err := os.ReadFile(r.threadHintPath(id))
	if err != nil {
		return gitobj.ZeroHash
	}
	h, ok := parseHash(bytes.TrimSuffix(data, []byte{'\n'}))
	if !ok {
		return gitobj.ZeroHash
	}
	return h
}

func (r *Repo) writeThreadHint(id ThreadID, start gitobj.Hash) error {
	path := r.threadHintPath(id)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("thread hint: %w", err)
	}
	if err := atomicfile.Write(path, []byte(start.String()+"\n"), 0o644); err != nil {
		return fmt.Errorf("thread hint: %w", err)
	}
	return nil
}

func (r *Repo) workflowCachePath(tree gitobj.Hash) string {
	return filepath.Join(r.UwfDir(), summaryCacheDir, workflowCacheDir, tree.String())
}

// workflowRecord is what the workflow cache keeps of a pinned workflow: the
// workflow node and its role schemas' payloads.
type workflowRecord struct {
	Alias   objects.Alias                     `json:"alias"`
	OID     string                            `json:"oid"`
	Type    objects.Alias                     `json:"type"`
	Payload json.RawMessage                   `json:"payload"`
	Schemas map[objects.Alias]json.RawMessage `json:"schemas"`
}

// cachedWorkflow decodes the workflow pinned by tree from the workflow
// cache (or from this process's memory), or returns nil.
func (r *Repo) cachedWorkflow(ctx context.Context, tree gitobj.Hash) *WorkflowInfo {
	r.mu.Lock()
	info, ok := r.pinned[tree]
	r.mu.Unlock()
	if ok {
		return info
	}
	if info = r.workflowFromCache(ctx, tree); info != nil {
		r.mu.Lock()
		r.pinned[tree] = info
		r.mu.Unlock()
	}
	return info
}

// workflowFromCache decodes the workflow cache file of tree, or returns nil.
func (r *Repo) workflowFromCache(ctx context.Context, tree gitobj.Hash) *WorkflowInfo {
	if tree.IsZero() {
		return nil
	}
	data, err := os.ReadFile(r.workflowCachePath(tree))
	if err != nil {
		return nil
	}
	rec, ok := parseWorkflowCache(data)
	if !ok {
		return nil
	}
	oid, ok := parseHash([]byte(rec.OID))
	if !ok {
		return nil
	}
	n := objects.Node{Alias: rec.Alias, OID: oid, Type: rec.Type, Payload: rec.Payload}
	info, err := r.decodeWorkflow(ctx, n, tree, func(a objects.Alias) (map[string]any, error) {
		p, ok := rec.Schemas[a]
		if !ok {
			return nil, fmt.Errorf("schema %s: %w", a, objects.ErrNotFound)
		}
		return objects.SchemaDocument(a, p)
	})
	if err != nil {
		return nil
	}
	return info
}

// writeWorkflowCache records a workflow decoded from git, with the nodes
// it was decoded from.
func (r *Repo) writeWorkflowCache(info *WorkflowInfo) error {
	if info == nil || info.Tree.IsZero() {
		return nil
	}
	n, err := r.Store.GetOID(info.OID)
	if err != nil {
		return fmt.Errorf("workflow cache: %w", err)
	}
	rec := workflowRecord{Alias: n.Alias, OID: n.OID.String(), Type: n.Type, Payload: n.Payload,
		Schemas: make(map[objects.Alias]json.RawMessage, len(info.RoleSchemas))}
	for _, a := range info.RoleSchemas {
		s, err := r.Store.Get(a)
		if err != nil {
			return fmt.Errorf("workflow cache: %w", err)
		}
		rec.Schemas[a] = s.Payload
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return fmt.Errorf("workflow cache: %w", err)
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	data := append([]byte(workflowCacheHead), body...)
	data = append(data, '\n')
	data = strconv.AppendUint(data, uint64(crc32.Checksum(body, entryCRC())), 16)
	data = append(data, '\n')
	path := r.workflowCachePath(info.Tree)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("workflow cache: %w", err)
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("workflow cache: %w", err)
	}
	return nil
}

func parseWorkflowCache(data []byte) (workflowRecord, bool) {
	var rec workflowRecord
	rest, ok := bytes.CutPrefix(data, []byte(workflowCacheHead))
	if !ok {
		return rec, false
	}
	body, sumLine, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok {
		return rec, false
	}
	sum, err := strconv.ParseUint(string(bytes.TrimSuffix(sumLine, []byte{'\n'})), 16, 32)
	if err != nil || uint32(sum) != crc32.Checksum(body, entryCRC()) {
		return rec, false
	}
	if err := json.Unmarshal(body, &rec); err != nil {
		return rec, false
	}
	return rec, true
}
