package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// The write path of a thread: start, append a step, cancel, fork. Each
// writes one commit and moves the thread's ref by compare-and-swap.

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
		{nodeTrailer, string(ref.Alias)}}, extra...)
	msg := message(fmt.Sprintf("start: %s — %s", wf.Name, prompt), excerpt(prompt, 20), trailers...)
	commit, err := r.writeCommit(ctx, tree, nil, msg)
	if err != nil {
		return nil, err
	}
	if err := r.casRef(ctx, id.Ref(), gitobj.ZeroHash, commit, "uwf: start thread"); err != nil {
		return nil, fmt.Errorf("create thread ref: %w", err)
	}
	return r.Thread(ctx, id)
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
// A step that fails verification gives an error wrapping ErrBadStep; a
// head that moved meanwhile, one wrapping ErrHeadMoved.
func (r *Repo) AppendStep(ctx context.Context, t *Thread, step objects.Ref, opts AppendOptions) (*Entry, error) {
	v, err := r.verifyStep(t, step, opts.ExpectedRole)
	if err != nil {
		return nil, err
	}
	files, msg := r.stepCommit(t, v, opts)
	return r.appendCommit(ctx, t, v.node, v.nodes, files, msg)
}

// verifiedStep is a StepNode verifyStep accepted, with what its commit
// holds.
type verifiedStep struct {
	node   objects.Node // the StepNode
	step   StepNode
	output map[string]any
	// nodes are the nodes the commit introduces: the StepNode and all it
	// references that the thread does not hold yet.
	nodes nodeSet
}

// verifyStep checks the StepNode step for thread t: it is stored under its
// alias, typed and valid as a StepNode, continues t's head, plays
// expectedRole (when set), and its output is typed by that role's schema
// (or, in a version 1 workflow, by the built-in suspend schema) and valid
// against it; every node it references is readable. Failures wrap
// ErrBadStep.
func (r *Repo) verifyStep(t *Thread, step objects.Ref, expectedRole string) (*verifiedStep, error) {
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
	if expectedRole != "" && sn.Role != expectedRole {
		return nil, fmt.Errorf("%w: step %s plays role %q, expected role %q", ErrBadStep, n.Alias, sn.Role, expectedRole)
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
	return &verifiedStep{node: n, step: sn, output: output, nodes: set}, nil
}

// stepCommit returns the files and the message of a verified step's
// commit: output.md (the body), output.yaml and prompt.md, and a subject
// "<role>: <status> — <summary>" over an excerpt of the body and the
// Uwf-* trailers.
func (r *Repo) stepCommit(t *Thread, v *verifiedStep, opts AppendOptions) (files map[string]string, msg string) {
	sn, output := v.step, v.output
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
	files = map[string]string{}
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
		{"Uwf-Agent", sn.Agent}, {nodeTrailer, string(v.node.Alias)}}
	if next, ok := nextTrailerAfterStep(t, sn, output); ok {
		trailers = append(trailers, next)
	}
	if opts.Child != "" {
		trailers = append(trailers, Trailer{"Uwf-Child", string(opts.Child)})
	}
	if opts.ReusedAttempt != "" {
		trailers = append(trailers, Trailer{"Uwf-Reused-Attempt", opts.ReusedAttempt})
	}
	trailers = append(trailers, opts.Trailers...)
	return files, message(subject, excerpt(opts.Body, 12), trailers...)
}

// appendCommit writes a commit on top of the thread head and moves the ref.
// msg must end with its trailer block; the Uwf-Start trailer is added to it.
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
	// Every message has a trailer block (Uwf-Thread at least): the start
	// trailer goes at its end.
	msg += r.startTrailerOf(ctx, t.Head.Commit)
	commit, err := r.writeCommit(ctx, tree, []gitobj.Hash{t.Head.Commit}, msg)
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
	msg := message("cancel: "+reason, "", Trailer{"Uwf-Thread", string(t.ID)}, Trailer{"Uwf-Status", "cancelled"}, Trailer{nodeTrailer, string(n.Alias)},
		Trailer{NextTrailer, "cancel"})
	return r.appendCommit(ctx, t, n, set, nil, msg)
}

// Fork creates a new thread whose head is an existing thread commit.
func (r *Repo) Fork(ctx context.Context, commit gitobj.Hash) (*Thread, error) {
	e, err := r.Entry(ctx, commit)
	if err != nil {
		return nil, err
	}
	if e.Kind == KindCancel {
		return nil, fmt.Errorf("cannot fork from a cancel commit %s; fork from a step", commit)
	}
	if err := r.checkForkClaims(ctx, e); err != nil {
		return nil, fmt.Errorf("cannot fork from %s: %w", commit, err)
	}
	id := NewThreadID(r.now())
	if err := r.casRef(ctx, id.Ref(), gitobj.ZeroHash, commit, "uwf: fork from "+commit.String()); err != nil {
		return nil, fmt.Errorf("create fork ref: %w", err)
	}
	return r.Thread(ctx, id)
}

// checkForkClaims checks the trailers of e's commit that a listing takes on
// trust, as sync checks a fetched chain's: its Uwf-Start against the root of
// its chain, found by walking first parents once (claims on the way are not
// trusted), and its Uwf-Next against routing it. A fork copies the first
// into its later steps, and its head is this commit, whose claim a listing
// shows as the fork's state. A commit without either trailer passes, and so
// does a start commit, whose claims no listing reads.
func (r *Repo) checkForkClaims(ctx context.Context, e *Entry) error {
	c, err := gitobj.GetCommit(r.Store.Storer(), e.Commit)
	if err != nil {
		return fmt.Errorf("read commit %s: %w", e.Commit, err)
	}
	if len(c.ParentHashes) == 0 || trailerValue(c.Message, StartTrailer) == "" && trailerValue(c.Message, NextTrailer) == "" {
		return nil
	}
	rootID, root, err := r.rootCommit(ctx, c.ParentHashes[0])
	if err != nil {
		return fmt.Errorf("find the start commit of %s: %w", e.Commit, err)
	}
	if err := CheckStartTrailer(c.Message, rootID, root.Message); err != nil {
		return err
	}
	return r.NextClaims(ThreadID(trailerValue(c.Message, threadTrailer)), rootID).Check(ctx, e, c.Message)
}

// textNode reads a text node that is not (yet) in any commit.
func (r *Repo) textNode(a objects.Alias) (string, error) {
	n, err := r.Store.Get(a)
	if err != nil {
		return "", err
	}
	return decodeText(n)
}
