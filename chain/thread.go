package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// StartNode is the root of a thread.
type StartNode struct {
	Workflow objects.Alias `json:"workflow"`
	Prompt   string        `json:"prompt"`
	// Cwd is where the thread's agents work: a slash-separated path
	// relative to the top of the work tree ("." for the top), so that it
	// means the same place in every clone. Threads of older versions, and
	// directories the user allowed outside the work tree, hold an absolute
	// path (see internal/workdir). StepNode.Cwd, the directory a step's
	// agent ran in, is recorded the same way.
	Cwd string `json:"cwd"`
}

// StepNode records one step: the role an agent played and what it produced.
type StepNode struct {
	Start           objects.Alias  `json:"start"`
	Prev            *objects.Alias `json:"prev"`
	Role            string         `json:"role"`
	Output          objects.Alias  `json:"output"`
	Body            objects.Alias  `json:"body,omitempty"`
	Detail          objects.Alias  `json:"detail,omitempty"`
	AssembledPrompt objects.Alias  `json:"assembledPrompt,omitempty"`
	Agent           string         `json:"agent"`
	EdgePrompt      string         `json:"edgePrompt"`
	StartedAtMs     int64          `json:"startedAtMs"`
	CompletedAtMs   int64          `json:"completedAtMs"`
	Cwd             string         `json:"cwd"`
	Extraction      string         `json:"extraction,omitempty"`
	Attempts        int            `json:"attempts,omitempty"`
	Redactions      map[string]int `json:"redactions,omitempty"`
	Resumed         bool           `json:"resumed,omitempty"`
	// Child is the thread that played this role when the role is played
	// by a workflow (see child.go).
	Child ThreadID `json:"child,omitempty"`
}

// CancelNode ends a thread on purpose.
type CancelNode struct {
	Start         objects.Alias  `json:"start"`
	Prev          *objects.Alias `json:"prev"`
	Reason        string         `json:"reason"`
	CancelledAtMs int64          `json:"cancelledAtMs"`
}

// EntryKind says which node a thread commit holds.
type EntryKind string

// Entry kinds.
const (
	KindStart  EntryKind = "start"
	KindStep   EntryKind = "step"
	KindCancel EntryKind = "cancel"
)

// Entry is one commit of a thread's chain.
type Entry struct {
	Commit plumbing.Hash
	Parent plumbing.Hash
	Tree   plumbing.Hash
	Time   time.Time
	Kind   EntryKind
	Node   objects.Node
	Start  *StartNode
	Step   *StepNode
	Cancel *CancelNode

	output json.RawMessage // the step's output payload, when the entry cache had it
	body   json.RawMessage // the step's body payload, when the entry cache had it
}

// Thread is a thread as seen at its head.
type Thread struct {
	ID         ThreadID
	Head       *Entry
	StartAlias objects.Alias
	Start      StartNode
	Workflow   *WorkflowInfo
}

// Errors returned by thread operations.
var (
	ErrUnknownThread = errors.New("unknown thread")
	ErrUnknownStep   = errors.New("unknown step")
	ErrHeadMoved     = errors.New("thread head moved")
	ErrBadStep       = errors.New("step rejected")
)

// StartThread creates refs/uwf/threads/<new ULID> whose root commit holds a
// StartNode for the given workflow version. cwd is stored as given (see
// StartNode.Cwd for what callers record).
func (r *Repo) StartThread(ctx context.Context, wf *WorkflowInfo, prompt, cwd string) (*Thread, error) {
	return r.StartThreadOn(ctx, wf, prompt, cwd, Code{})
}

// StartThreadOn is StartThread for a thread that records the branch and
// commit of the work tree it starts on (as trailers of its root commit).
func (r *Repo) StartThreadOn(ctx context.Context, wf *WorkflowInfo, prompt, cwd string, code Code) (*Thread, error) {
	return r.startThread(ctx, wf, prompt, cwd, NewThreadID(r.now()), code.trailers()...)
}

// startThread creates thread id; extra trailers go into the start commit.
func (r *Repo) startThread(ctx context.Context, wf *WorkflowInfo, prompt, cwd string, id ThreadID, extra ...Trailer) (*Thread, error) {
	if strings.TrimSpace(prompt) == "" {
		return nil, errors.New("start thread: the prompt is empty")
	}
	schema, err := r.schema("uwf.StartNode")
	if err != nil {
		return nil, err
	}
	start := StartNode{Workflow: wf.Alias, Prompt: prompt, Cwd: cwd}
	ref, err := r.Store.Put(schema.Alias, start)
	if err != nil {
		return nil, fmt.Errorf("store start node: %w", err)
	}
	node, err := r.Store.GetOID(ref.OID)
	if err != nil {
		return nil, err
	}
	set := nodeSet{}
	if err := r.addNode(set, node); err != nil {
		return nil, err
	}
	s := r.Store.Storer()
	task, err := writeBlob(s, []byte(prompt+"\n"))
	if err != nil {
		return nil, err
	}
	t := newTree()
	t.blob("node", ref.OID)
	t.blob("start", ref.OID)
	t.blob("task.md", task)
	t.subtree("workflow", wf.Tree)
	t.nodes("nodes", set)
	tree, err := t.write(s)
	if err != nil {
		return nil, err
	}
	trailers := append([]Trailer{{"Uwf-Thread", string(id)}, {"Uwf-Workflow", wf.Name + " " + string(wf.Alias)},
		{"Uwf-Node", string(ref.Alias)}}, extra...)
	msg := message(fmt.Sprintf("start: %s — %s", wf.Name, prompt), excerpt(prompt, 20), trailers...)
	commit, err := r.writeCommit(ctx, tree, nil, msg)
	if err != nil {
		return nil, err
	}
	if err := r.casRef(ctx, id.Ref(), plumbing.ZeroHash, commit, "uwf: start thread"); err != nil {
		return nil, fmt.Errorf("create thread ref: %w", err)
	}
	return r.Thread(ctx, id)
}

// ThreadIDs lists every thread id (refs/uwf/threads/*), oldest first.
func (r *Repo) ThreadIDs(ctx context.Context) ([]ThreadID, map[ThreadID]plumbing.Hash, error) {
	refs, err := r.ListRefs(ctx, ThreadsPrefix)
	if err != nil {
		return nil, nil, fmt.Errorf("list threads: %w", err)
	}
	ids := make([]ThreadID, 0, len(refs))
	heads := make(map[ThreadID]plumbing.Hash, len(refs))
	for _, ref := range refs {
		id, err := ParseThreadID(strings.TrimPrefix(ref.Name, ThreadsPrefix))
		if err != nil {
			continue // not ours; ignore foreign refs in the namespace
		}
		ids = append(ids, id)
		heads[id] = plumbing.NewHash(ref.OID)
	}
	return ids, heads, nil
}

// ResolveThread turns a full id or an unambiguous prefix into a ThreadID.
func (r *Repo) ResolveThread(ctx context.Context, s string) (ThreadID, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if id, err := ParseThreadID(s); err == nil {
		head, err := r.resolveRef(id.Ref())
		if err != nil {
			return "", err
		}
		if head.IsZero() {
			return "", fmt.Errorf("thread %s: %w", id, ErrUnknownThread)
		}
		return id, nil
	}
	if len(s) < 4 || len(s) > 26 || strings.Trim(s, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") != "" {
		return "", fmt.Errorf("invalid thread id %q: want a ULID or a prefix of at least 4 characters", s)
	}
	ids, _, err := r.ThreadIDs(ctx)
	if err != nil {
		return "", err
	}
	var matches []ThreadID
	for _, id := range ids {
		if strings.HasPrefix(string(id), s) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("thread %s: %w", s, ErrUnknownThread)
	case 1:
		return matches[0], nil
	default:
		return "", fmt.Errorf("thread prefix %s is ambiguous: %d threads match (%s, %s, …)", s, len(matches), matches[0], matches[1])
	}
}

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
func (r *Repo) ThreadAt(ctx context.Context, id ThreadID, head plumbing.Hash) (*Thread, error) {
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
func (r *Repo) Entry(ctx context.Context, commit plumbing.Hash) (*Entry, error) {
	e, _, err := r.entryWithTree(commit)
	return e, err
}

// entryWithTree is Entry, also returning the commit's tree.
func (r *Repo) entryWithTree(commit plumbing.Hash) (*Entry, *gitobj.Tree, error) {
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
func (r *Repo) Chain(ctx context.Context, head plumbing.Hash) ([]*Entry, error) {
	return r.chain(ctx, head, true)
}

// chain is Chain; unless decode is set, entries that come from the entry
// cache have their kind but not yet their node decoded (decodePayload does
// that), for callers that look at a few of them only.
func (r *Repo) chain(ctx context.Context, head plumbing.Hash, decode bool) ([]*Entry, error) {
	var (
		rev   []*Entry
		shard *entryShard
		start plumbing.Hash
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
	for c := head; !c.IsZero(); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var e *Entry
		if rec, ok := shard.get(c); ok {
			var err error
			if e, err = r.entryFromRecord(rec, &zones, decode); err != nil {
				return nil, err
			}
		} else {
			var root *gitobj.Tree
			var err error
			if e, root, err = r.entryWithTree(c); err != nil {
				return nil, err
			}
			added = append(added, r.gitRecord(e, root))
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
		return nil, fmt.Errorf("chain at %s does not start with a StartNode", head)
	}
	_ = r.appendEntries(start, shard, added) // a cache that cannot be written only costs speed
	return rev, nil
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

// AppendOptions describe a step to append.
type AppendOptions struct {
	// ExpectedRole is the role the moderator asked for; the StepNode must match.
	ExpectedRole string
	// Status and Summary go into the commit subject.
	Status  string
	Summary string
	// Body is the agent's markdown deliverable (kept as output.md).
	Body string
	// Prompt is the assembled prompt the agent saw (kept as prompt.md).
	Prompt string
	// ReusedAttempt, when set, is the failed attempt whose StepNode this
	// is: the commit records it in an Uwf-Reused-Attempt trailer.
	ReusedAttempt string
	// Child is the thread that played the role (an Uwf-Child trailer).
	Child ThreadID
	// Trailers are added to the commit message (e.g. the code commit the
	// step ran on).
	Trailers []Trailer
}

// AppendStep verifies a StepNode written by an agent and appends it to the
// thread as a new commit, moving the ref from head by compare-and-swap.
// The StepNode must continue the head: same start, prev = head's step.
func (r *Repo) AppendStep(ctx context.Context, t *Thread, step objects.Ref, opts AppendOptions) (*Entry, error) {
	n, err := r.Store.GetOID(step.OID)
	if err != nil {
		return nil, fmt.Errorf("%w: step node %s: %v", ErrBadStep, step.OID, err)
	}
	if step.Alias != "" && n.Alias != step.Alias {
		return nil, fmt.Errorf("%w: object %s hashes to %s, not %s", ErrBadStep, step.OID, n.Alias, step.Alias)
	}
	stepSchema, err := r.schema("uwf.StepNode")
	if err != nil {
		return nil, err
	}
	if n.Type != stepSchema.Alias {
		return nil, fmt.Errorf("%w: node %s is not a StepNode", ErrBadStep, n.Alias)
	}
	if err := r.Store.Validate(n.Type, n.Payload); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadStep, err)
	}
	var sn StepNode
	if err := n.Decode(&sn); err != nil {
		return nil, fmt.Errorf("%w: decode step node: %v", ErrBadStep, err)
	}
	if sn.Start != t.StartAlias {
		return nil, fmt.Errorf("%w: step %s belongs to thread start %s, not %s", ErrBadStep, n.Alias, sn.Start, t.StartAlias)
	}
	wantPrev := headStepAlias(t.Head)
	if !sameAlias(sn.Prev, wantPrev) {
		return nil, fmt.Errorf("%w: step %s continues %s, but the thread head is %s", ErrBadStep, n.Alias, aliasOrNull(sn.Prev), aliasOrNull(wantPrev))
	}
	if opts.ExpectedRole != "" && sn.Role != opts.ExpectedRole {
		return nil, fmt.Errorf("%w: step %s plays role %q, expected role %q", ErrBadStep, n.Alias, sn.Role, opts.ExpectedRole)
	}
	roleSchema, ok := t.Workflow.RoleSchemas[sn.Role]
	if !ok {
		return nil, fmt.Errorf("%w: role %q is not in workflow %s", ErrBadStep, sn.Role, t.Workflow.Name)
	}
	out, err := r.Store.Get(sn.Output)
	if err != nil {
		return nil, fmt.Errorf("%w: output %s: %v", ErrBadStep, sn.Output, err)
	}
	if out.Type != roleSchema {
		// A version 1 role may yield instead of answering: its output is
		// then typed by the built-in suspend schema.
		suspend := objects.Alias("")
		if t.Workflow.Workflow.Version >= moderator.DialectV1 {
			if ref, err := r.schema("uwf.SuspendOutput"); err == nil {
				suspend = ref.Alias
			}
		}
		if suspend == "" || out.Type != suspend {
			return nil, fmt.Errorf("%w: output %s is not typed by role %q's schema", ErrBadStep, sn.Output, sn.Role)
		}
	}
	if err := r.Store.Validate(out.Type, out.Payload); err != nil {
		return nil, fmt.Errorf("%w: output of role %q: %v", ErrBadStep, sn.Role, err)
	}

	stop := map[objects.Alias]bool{sn.Start: true}
	if sn.Prev != nil {
		stop[*sn.Prev] = true
	}
	set := nodeSet{}
	if err := r.collect(set, n.Alias, stop); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadStep, err)
	}
	var output map[string]any
	_ = json.Unmarshal(out.Payload, &output)
	if opts.Body == "" && sn.Body != "" {
		opts.Body, _ = r.textNode(sn.Body)
	}
	if opts.Prompt == "" && sn.AssembledPrompt != "" {
		opts.Prompt, _ = r.textNode(sn.AssembledPrompt)
	}
	status := opts.Status
	if status == "" {
		status, _ = output["$status"].(string)
		if status == "" {
			status = "done"
		}
	}
	files := map[string]string{}
	if opts.Body != "" {
		files["output.md"] = opts.Body
	}
	if y, err := yaml.Marshal(output); err == nil {
		files["output.yaml"] = string(y)
	}
	if opts.Prompt != "" {
		files["prompt.md"] = opts.Prompt
	}
	summary := opts.Summary
	if summary == "" {
		summary = Summarize(opts.Body, output, 72)
	}
	subject := fmt.Sprintf("%s: %s", sn.Role, status)
	if summary != "" {
		subject += " — " + summary
	}
	trailers := []Trailer{{"Uwf-Thread", string(t.ID)}, {"Uwf-Role", sn.Role}, {"Uwf-Status", status},
		{"Uwf-Agent", sn.Agent}, {"Uwf-Node", string(n.Alias)}}
	if opts.Child != "" {
		trailers = append(trailers, Trailer{"Uwf-Child", string(opts.Child)})
	}
	if opts.ReusedAttempt != "" {
		trailers = append(trailers, Trailer{"Uwf-Reused-Attempt", opts.ReusedAttempt})
	}
	trailers = append(trailers, opts.Trailers...)
	msg := message(subject, excerpt(opts.Body, 12), trailers...)
	return r.appendCommit(ctx, t, n, set, files, msg)
}

// appendCommit writes a commit on top of the thread head and moves the ref.
func (r *Repo) appendCommit(ctx context.Context, t *Thread, head objects.Node, set nodeSet, files map[string]string, msg string) (*Entry, error) {
	s := r.Store.Storer()
	tb := newTree()
	tb.blob("node", head.OID)
	startOID, err := treeEntry(s, t.Head.Tree, "start")
	if err != nil {
		return nil, err
	}
	tb.blob("start", startOID)
	tb.subtree("workflow", t.Workflow.Tree)
	tb.nodes("nodes", set)
	for name, content := range files {
		oid, err := writeBlob(s, []byte(content))
		if err != nil {
			return nil, err
		}
		tb.blob(name, oid)
	}
	tree, err := tb.write(s)
	if err != nil {
		return nil, err
	}
	commit, err := r.writeCommit(ctx, tree, []plumbing.Hash{t.Head.Commit}, msg)
	if err != nil {
		return nil, err
	}
	// The commit is written: an interrupt must not stop the ref update
	// halfway through deciding, so it runs without the caller's cancellation.
	err = r.casRef(context.WithoutCancel(ctx), t.ID.Ref(), t.Head.Commit, commit, "uwf: "+strings.SplitN(msg, "\n", 2)[0])
	var conflict *gitrepo.RefConflictError
	switch {
	case errors.As(err, &conflict):
		return nil, fmt.Errorf("%w: thread %s: new commit %s is not on the thread (%v)", ErrHeadMoved, t.ID, commit, err)
	case err != nil:
		return nil, fmt.Errorf("thread %s: move the ref to new commit %s: %w", t.ID, commit, err)
	}
	return r.Entry(ctx, commit)
}

// Cancel appends a terminal CancelNode.
func (r *Repo) Cancel(ctx context.Context, t *Thread, reason string) (*Entry, error) {
	if t.Head.Kind == KindCancel {
		return nil, fmt.Errorf("thread %s is already cancelled", t.ID)
	}
	if st, err := r.State(ctx, t); err != nil {
		return nil, err
	} else if st.Status == StatusCompleted {
		return nil, fmt.Errorf("thread %s is already completed; there is nothing to cancel", t.ID)
	}
	if strings.TrimSpace(reason) == "" {
		reason = "cancelled"
	}
	schema, err := r.schema("uwf.CancelNode")
	if err != nil {
		return nil, err
	}
	cn := CancelNode{Start: t.StartAlias, Prev: headStepAlias(t.Head), Reason: reason, CancelledAtMs: r.now().UnixMilli()}
	ref, err := r.Store.Put(schema.Alias, cn)
	if err != nil {
		return nil, err
	}
	n, err := r.Store.GetOID(ref.OID)
	if err != nil {
		return nil, err
	}
	set := nodeSet{}
	if err := r.addNode(set, n); err != nil {
		return nil, err
	}
	msg := message("cancel: "+reason, "", Trailer{"Uwf-Thread", string(t.ID)}, Trailer{"Uwf-Status", "cancelled"}, Trailer{"Uwf-Node", string(n.Alias)})
	return r.appendCommit(ctx, t, n, set, nil, msg)
}

// Fork creates a new thread whose head is an existing thread commit.
func (r *Repo) Fork(ctx context.Context, commit plumbing.Hash) (*Thread, error) {
	e, err := r.Entry(ctx, commit)
	if err != nil {
		return nil, err
	}
	if e.Kind == KindCancel {
		return nil, fmt.Errorf("cannot fork from a cancel commit %s; fork from a step", commit)
	}
	id := NewThreadID(r.now())
	if err := r.casRef(ctx, id.Ref(), plumbing.ZeroHash, commit, "uwf: fork from "+commit.String()); err != nil {
		return nil, fmt.Errorf("create fork ref: %w", err)
	}
	return r.Thread(ctx, id)
}

// FindStep resolves a step by commit oid (full or ≥4-hex prefix) or by the
// alias (or alias prefix) of its node, searching every thread's chain.
func (r *Repo) FindStep(ctx context.Context, s string) (*Entry, error) {
	s = strings.TrimSpace(s)
	if len(s) < 4 {
		return nil, fmt.Errorf("step %q: give at least 4 characters of a step alias or commit id", s)
	}
	if out, err := r.Git.Output(ctx, "rev-parse", "--verify", "--quiet", s+"^{commit}"); err == nil && out != "" {
		commit := plumbing.NewHash(out)
		if e, err := r.Entry(ctx, commit); err == nil {
			return e, nil
		}
		// A code commit made during a step points back with a trailer.
		if c, err := gitobj.GetCommit(r.Store.Storer(), commit); err == nil {
			if v, ok := trailers(c.Message)[StepTrailer]; ok {
				return r.followStepTrailer(ctx, strings.TrimSpace(v))
			}
		}
	}
	upper := strings.ToUpper(s)
	if strings.Trim(upper, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") != "" {
		return nil, fmt.Errorf("step %q: %w", s, ErrUnknownStep)
	}
	_, heads, err := r.ThreadIDs(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[plumbing.Hash]bool{}
	var found []*Entry
	for _, head := range heads {
		for c := head; !c.IsZero() && !seen[c]; {
			seen[c] = true
			e, err := r.Entry(ctx, c)
			if err != nil {
				break
			}
			if strings.HasPrefix(string(e.Node.Alias), upper) {
				found = append(found, e)
			}
			c = e.Parent
			if e.Kind == KindStart {
				break
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("step %s: %w", s, ErrUnknownStep)
	case 1:
		return found[0], nil
	}
	for _, e := range found[1:] {
		if e.Node.Alias != found[0].Node.Alias {
			return nil, fmt.Errorf("step prefix %s is ambiguous (%s, %s, …)", s, found[0].Node.Alias, e.Node.Alias)
		}
	}
	return found[0], nil
}

// StepTrailer is the commit trailer that ties a code commit to the step
// that made it. Its value is "<thread-id>@<commit the step started from>"
// (what the engine exports as UWF_STEP_TRAILER) or a step alias.
const StepTrailer = "Uwf-Step"

// StepTrailerValue is the trailer value for a step starting on head.
func StepTrailerValue(id ThreadID, head plumbing.Hash) string {
	return string(id) + "@" + head.String()[:12]
}

func (r *Repo) followStepTrailer(ctx context.Context, v string) (*Entry, error) {
	idPart, headPart, ok := strings.Cut(v, "@")
	if !ok {
		if objects.IsAlias(strings.ToUpper(v)) {
			return r.FindStep(ctx, v)
		}
		return nil, fmt.Errorf("%s trailer %q: want <thread>@<commit> or a step alias", StepTrailer, v)
	}
	id, err := r.ResolveThread(ctx, idPart)
	if err != nil {
		return nil, fmt.Errorf("%s trailer %q: %w", StepTrailer, v, err)
	}
	t, err := r.Thread(ctx, id)
	if err != nil {
		return nil, err
	}
	entries, err := r.Chain(ctx, t.Head.Commit)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Kind == KindStep && strings.HasPrefix(e.Parent.String(), strings.ToLower(headPart)) {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%s trailer %q: thread %s has no step on top of %s (not recorded yet, or on another fork): %w", StepTrailer, v, id, headPart, ErrUnknownStep)
}

// headStepAlias is the alias a new step must name as prev: nil when the
// head is the StartNode.
func headStepAlias(e *Entry) *objects.Alias {
	switch e.Kind {
	case KindStep:
		a := e.Node.Alias
		return &a
	case KindCancel:
		return e.Cancel.Prev
	}
	return nil
}

// HeadStepAlias is the prev value a new step on this thread must carry.
func (t *Thread) HeadStepAlias() *objects.Alias { return headStepAlias(t.Head) }

func sameAlias(a, b *objects.Alias) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func aliasOrNull(a *objects.Alias) string {
	if a == nil {
		return "the start"
	}
	return string(*a)
}

// textNode reads a text node that is not (yet) in any commit.
func (r *Repo) textNode(a objects.Alias) (string, error) {
	n, err := r.Store.Get(a)
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
