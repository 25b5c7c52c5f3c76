package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// WorkflowInfo is a workflow version stored in the object database.
type WorkflowInfo struct {
	Alias       objects.Alias
	OID         gitobj.Hash
	Name        string
	Workflow    *moderator.Workflow
	RoleSchemas map[string]objects.Alias
	// Tree pins this version: node, nodes/ (workflow + schemas), workflow.yaml.
	// Thread commits carry it as their workflow/ subtree.
	Tree gitobj.Hash
}

// ErrUnknownWorkflow means no workflow matched a name or alias.
var ErrUnknownWorkflow = errors.New("unknown workflow")

// MaterializeWorkflow stores a loaded workflow as nodes: one schema node per
// role, then the Workflow node whose roles point at them. It is idempotent
// and does not touch any ref.
func (r *Repo) MaterializeWorkflow(ctx context.Context, w *moderator.Workflow) (*WorkflowInfo, error) {
	wfSchema, err := r.schema("uwf.Workflow")
	if err != nil {
		return nil, err
	}
	doc := w.Document()
	roles, _ := doc["roles"].(map[string]any)
	roleSchemas := map[string]objects.Alias{}
	for _, name := range w.RoleOrder {
		role := w.Roles[name]
		schema := make(map[string]any, len(role.Frontmatter)+1)
		for k, v := range role.Frontmatter {
			schema[k] = v
		}
		if _, ok := schema["title"]; !ok {
			schema["title"] = w.Name + "." + name
		}
		ref, err := r.Store.PutSchema(schema)
		if err != nil {
			return nil, fmt.Errorf("store schema of role %q: %w", name, err)
		}
		roleSchemas[name] = ref.Alias
		if rd, ok := roles[name].(map[string]any); ok {
			rd["frontmatter"] = string(ref.Alias)
		}
	}
	ref, err := r.Store.Put(wfSchema.Alias, doc)
	if err != nil {
		return nil, fmt.Errorf("store workflow %q: %w", w.Name, err)
	}
	info := &WorkflowInfo{Alias: ref.Alias, OID: ref.OID, Name: w.Name, Workflow: w, RoleSchemas: roleSchemas}
	if info.Tree, err = r.workflowTree(ref.Alias, ref.OID, w); err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.workflows[info.Alias] = info
	r.mu.Unlock()
	return info, nil
}

// workflowTree builds the deterministic tree that pins a workflow version.
func (r *Repo) workflowTree(alias objects.Alias, oid gitobj.Hash, w *moderator.Workflow) (gitobj.Hash, error) {
	set := nodeSet{}
	if err := r.collect(set, alias, nil); err != nil {
		return gitobj.ZeroHash, err
	}
	readable, err := yaml.Marshal(w.Document())
	if err != nil {
		return gitobj.ZeroHash, fmt.Errorf("render workflow: %w", err)
	}
	s := r.Store.Storer()
	yamlOID, err := writeBlob(s, readable)
	if err != nil {
		return gitobj.ZeroHash, err
	}
	t := newTree()
	t.blob("node", oid)
	t.blob("workflow.yaml", yamlOID)
	t.nodes("nodes", set)
	return t.write(s)
}

// RegisterWorkflow materializes w and records it as the newest version on
// refs/uwf/workflows/<name>. Registering the version already at the tip is
// a no-op (changed is false).
func (r *Repo) RegisterWorkflow(ctx context.Context, w *moderator.Workflow) (info *WorkflowInfo, changed bool, err error) {
	if err := validWorkflowName(w.Name); err != nil {
		return nil, false, err
	}
	info, err = r.MaterializeWorkflow(ctx, w)
	if err != nil {
		return nil, false, err
	}
	refName := WorkflowsPrefix + w.Name
	tip, err := r.resolveRef(refName)
	if err != nil {
		return nil, false, err
	}
	var parents []gitobj.Hash
	if !tip.IsZero() {
		c, err := gitobj.GetCommit(r.Store.Storer(), tip)
		if err != nil {
			return nil, false, fmt.Errorf("read %s: %w", refName, err)
		}
		if node, err := treeEntry(r.Store.Storer(), c.TreeHash, "node"); err == nil && node == info.OID {
			return info, false, nil
		}
		parents = []gitobj.Hash{tip}
	}
	msg := message(fmt.Sprintf("workflow %s: %d roles", w.Name, len(w.Roles)), w.Description,
		Trailer{"Uwf-Workflow", w.Name}, Trailer{nodeTrailer, string(info.Alias)})
	commit, err := r.writeCommit(ctx, info.Tree, parents, msg)
	if err != nil {
		return nil, false, err
	}
	if err := r.casRef(ctx, refName, tip, commit, "uwf: register workflow "+w.Name); err != nil {
		return nil, false, fmt.Errorf("register workflow %q: %w", w.Name, err)
	}
	return info, true, nil
}

// LoadWorkflow reads a stored workflow version by alias.
func (r *Repo) LoadWorkflow(ctx context.Context, alias objects.Alias) (*WorkflowInfo, error) {
	r.mu.Lock()
	info, ok := r.workflows[alias]
	r.mu.Unlock()
	if ok {
		return info, nil
	}
	n, err := r.Store.Get(alias)
	if err != nil {
		return nil, fmt.Errorf("load workflow %s: %w", alias, err)
	}
	return r.workflowFromNode(ctx, n, gitobj.ZeroHash)
}

// workflowFromNode decodes a Workflow node. tree is the tree that pins it
// when the caller read it from one; otherwise the pinning tree is built
// (and written) the way MaterializeWorkflow builds it.
func (r *Repo) workflowFromNode(ctx context.Context, n objects.Node, tree gitobj.Hash) (*WorkflowInfo, error) {
	if tree.IsZero() {
		// The pinning tree is built below and holds the schema node.
		if _, err := r.schema("uwf.Workflow"); err != nil {
			return nil, err
		}
	}
	return r.decodeWorkflow(ctx, n, tree, r.Store.Schema)
}

// decodeWorkflow decodes a Workflow node whose role schemas schemaOf
// returns (as Store.Schema does).
func (r *Repo) decodeWorkflow(ctx context.Context, n objects.Node, tree gitobj.Hash, schemaOf func(objects.Alias) (map[string]any, error)) (*WorkflowInfo, error) {
	if n.Type != workflowAlias {
		return nil, fmt.Errorf("node %s is not a workflow: %w", n.Alias, ErrUnknownWorkflow)
	}
	var doc map[string]any
	if err := json.Unmarshal(n.Payload, &doc); err != nil {
		return nil, fmt.Errorf("decode workflow %s: %w", n.Alias, err)
	}
	roleSchemas := map[string]objects.Alias{}
	roles, _ := doc["roles"].(map[string]any)
	for name, rv := range roles {
		rd, ok := rv.(map[string]any)
		if !ok {
			continue
		}
		s, _ := rd["frontmatter"].(string)
		a, err := objects.ParseAlias(s)
		if err != nil {
			return nil, fmt.Errorf("workflow %s role %q: bad schema reference: %w", n.Alias, name, err)
		}
		schema, err := schemaOf(a)
		if err != nil {
			return nil, fmt.Errorf("workflow %s role %q: %w", n.Alias, name, err)
		}
		roleSchemas[name] = a
		rd["frontmatter"] = schema
	}
	w, err := moderator.FromDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("workflow %s: %w", n.Alias, err)
	}
	info := &WorkflowInfo{Alias: n.Alias, OID: n.OID, Name: w.Name, Workflow: w, RoleSchemas: roleSchemas, Tree: tree}
	if tree.IsZero() {
		if info.Tree, err = r.workflowTree(n.Alias, n.OID, w); err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.workflows[info.Alias] = info
		r.mu.Unlock()
	}
	return info, nil
}

// loadWorkflowTree reads the workflow pinned by a tree (a workflow/ subtree
// or a registry commit's tree) and keeps that exact tree.
func (r *Repo) loadWorkflowTree(ctx context.Context, tree gitobj.Hash) (*WorkflowInfo, error) {
	// Every commit of a thread, and usually every thread of a workflow
	// version, pins the same tree: decode it once per process.
	r.mu.Lock()
	pinned, ok := r.pinned[tree]
	r.mu.Unlock()
	if ok {
		return pinned, nil
	}
	s := r.Store.Storer()
	oid, err := treeEntry(s, tree, "node")
	if err != nil {
		return nil, err
	}
	if oid.IsZero() {
		return nil, fmt.Errorf("tree %s pins no workflow", tree)
	}
	n, err := r.Store.GetOID(oid)
	if err != nil {
		return nil, fmt.Errorf("workflow node %s: %w", oid, err)
	}
	r.mu.Lock()
	info, ok := r.workflows[n.Alias]
	r.mu.Unlock()
	if ok && info.Tree == tree {
		return info, nil
	}
	// Teach the index every node of the pinned tree before decoding, so role
	// schemas resolve even when the index has never seen this workflow.
	if err := r.learnTree(tree, "nodes"); err != nil {
		return nil, err
	}
	// A read never writes: the tree it came from is the pinning tree.
	info, err = r.workflowFromNode(ctx, n, tree)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.pinned[tree] = info
	r.mu.Unlock()
	return info, nil
}

// learnTree tells the alias index about the alias-named entries of dir.
func (r *Repo) learnTree(tree gitobj.Hash, dir string) error {
	s := r.Store.Storer()
	t, err := gitobj.GetTree(s, tree)
	if err != nil {
		return fmt.Errorf("read tree %s: %w", tree, err)
	}
	sub, err := gitobj.Subtree(s, t, dir)
	if err != nil {
		return nil
	}
	for _, e := range sub.Entries {
		if objects.IsAlias(e.Name) {
			if err := r.Store.Learn(objects.Alias(e.Name), e.Hash); err != nil {
				return err
			}
		}
	}
	return nil
}

// RegisteredWorkflow is one entry of the workflow registry.
type RegisteredWorkflow struct {
	Name        string        `json:"name"`
	Hash        objects.Alias `json:"hash"`
	Description string        `json:"description"`
	Commit      string        `json:"commit"`
	UpdatedAt   time.Time     `json:"updatedAt"`
}

// Workflows lists the registry (refs/uwf/workflows/*), sorted by name.
func (r *Repo) Workflows(ctx context.Context) ([]RegisteredWorkflow, error) {
	refs, err := r.ListRefs(ctx, WorkflowsPrefix)
	if err != nil {
		return nil, fmt.Errorf("list workflows: %w", err)
	}
	var out []RegisteredWorkflow
	for _, ref := range refs {
		rw, err := r.registryEntry(ctx, ref.Name[len(WorkflowsPrefix):], gitobj.NewHash(ref.OID))
		if err != nil {
			return nil, err
		}
		out = append(out, rw)
	}
	return out, nil
}

func (r *Repo) registryEntry(ctx context.Context, name string, commit gitobj.Hash) (RegisteredWorkflow, error) {
	c, err := gitobj.GetCommit(r.Store.Storer(), commit)
	if err != nil {
		return RegisteredWorkflow{}, fmt.Errorf("read workflow %s: %w", name, err)
	}
	info, err := r.loadWorkflowTree(ctx, c.TreeHash)
	if err != nil {
		return RegisteredWorkflow{}, fmt.Errorf("workflow %s: %w", name, err)
	}
	return RegisteredWorkflow{Name: name, Hash: info.Alias, Description: info.Workflow.Description,
		Commit: commit.String(), UpdatedAt: c.Committer.When.UTC()}, nil
}

// WorkflowHistory lists the registered versions of a workflow, newest first.
func (r *Repo) WorkflowHistory(ctx context.Context, name string) ([]RegisteredWorkflow, error) {
	if err := validWorkflowName(name); err != nil {
		return nil, err
	}
	tip, err := r.resolveRef(WorkflowsPrefix + name)
	if err != nil {
		return nil, err
	}
	if tip.IsZero() {
		return nil, fmt.Errorf("workflow %q is not registered: %w", name, ErrUnknownWorkflow)
	}
	var out []RegisteredWorkflow
	for c := tip; !c.IsZero(); {
		rw, err := r.registryEntry(ctx, name, c)
		if err != nil {
			return nil, err
		}
		out = append(out, rw)
		commit, err := gitobj.GetCommit(r.Store.Storer(), c)
		if err != nil {
			return nil, err
		}
		c = gitobj.ZeroHash
		if len(commit.ParentHashes) > 0 {
			c = commit.ParentHashes[0]
		}
	}
	return out, nil
}

// FindWorkflow resolves a registered name or a workflow alias (or an
// unambiguous alias prefix).
func (r *Repo) FindWorkflow(ctx context.Context, nameOrAlias string) (*WorkflowInfo, error) {
	if validWorkflowName(nameOrAlias) == nil {
		tip, err := r.resolveRef(WorkflowsPrefix + nameOrAlias)
		if err != nil {
			return nil, err
		}
		if !tip.IsZero() {
			c, err := gitobj.GetCommit(r.Store.Storer(), tip)
			if err != nil {
				return nil, fmt.Errorf("read workflow %s: %w", nameOrAlias, err)
			}
			return r.loadWorkflowTree(ctx, c.TreeHash)
		}
	}
	if len(nameOrAlias) >= 4 && len(nameOrAlias) <= objects.AliasLen {
		if a, err := r.Store.ResolvePrefix(nameOrAlias); err == nil {
			info, err := r.LoadWorkflow(ctx, a)
			if err == nil {
				return info, nil
			}
			if !errors.Is(err, ErrUnknownWorkflow) {
				return nil, err
			}
		} else {
			var amb *objects.AmbiguousPrefixError
			if errors.As(err, &amb) {
				return nil, err
			}
		}
	}
	return nil, fmt.Errorf("%q: %w (not a registered name or a workflow alias)", nameOrAlias, ErrUnknownWorkflow)
}
