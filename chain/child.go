package chain

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/moderator"
)

// A role may be played by a whole workflow: the step starts a child thread
// of that workflow, steps it to completion, and appends one step to the
// parent whose output is the child's last output. The child's start commit
// names its parent in an Uwf-Parent trailer ("<thread> <head commit>
// <role>"); the parent's step names the child in its StepNode (child) and
// in an Uwf-Child trailer.

// ParentLink is where a child thread came from.
type ParentLink struct {
	Thread ThreadID `json:"thread"`
	// Head is the parent's head commit the child plays a role on.
	Head string `json:"head"`
	Role string `json:"role"`
}

// ChildID is the id of the child thread that plays role on the parent's
// head: a ULID whose time is the head's commit time and whose random part
// comes from SHA-256 of the parent, head and role. A retry (or another
// process) finds the same child instead of starting a second one.
func ChildID(parent ThreadID, head *Entry, role string) ThreadID {
	return childID(parent, head.Commit, head.Time, role)
}

// childID is ChildID for a head given by its commit and time (a Summary's
// HeadCommit and UpdatedAt).
func childID(parent ThreadID, head gitobj.Hash, at time.Time, role string) ThreadID {
	sum := sha256.Sum256([]byte("git-uwf child\n" + string(parent) + "\n" + head.String() + "\n" + role))
	u, err := ulid.New(childMs(at), bytes.NewReader(sum[:10]))
	if err != nil { // unreachable: the time is clamped and 10 bytes are there
		return NewThreadID(at)
	}
	return ThreadID(u.String())
}

// childMs is the time of a child's id: its parent's head time in
// milliseconds, within what a ULID can hold.
func childMs(at time.Time) uint64 {
	return min(uint64(max(at.UnixMilli(), 0)), ulid.MaxTime())
}

// StartChild returns the child thread that plays role on parent's head,
// starting it (with prompt as its task, in cwd) when it does not exist.
func (r *Repo) StartChild(ctx context.Context, parent *Thread, role string, wf *WorkflowInfo, prompt, cwd string) (*Thread, error) {
	id := ChildID(parent.ID, parent.Head, role)
	tip, err := r.resolveRef(id.Ref())
	if err != nil {
		return nil, err
	}
	if !tip.IsZero() {
		return r.adoptChild(ctx, id, parent, role, wf)
	}
	link := Trailer{"Uwf-Parent", string(parent.ID) + " " + parent.Head.Commit.String() + " " + role}
	t, err := r.startThread(ctx, wf, prompt, cwd, id, link)
	if err != nil {
		// Someone else started it first: use theirs.
		if tip, rerr := r.resolveRef(id.Ref()); rerr == nil && !tip.IsZero() {
			return r.adoptChild(ctx, id, parent, role, wf)
		}
		return nil, fmt.Errorf("start child thread of %s for role %q: %w", parent.ID, role, err)
	}
	return t, nil
}

// ErrForeignChild means the thread at a child's id was not started for
// that parent step: its Uwf-Parent link or its workflow differ.
var ErrForeignChild = errors.New("the thread at the child's id is not this step's child")

// adoptChild returns the existing thread id as the child playing role on
// parent's head, after checking that it is one: its start commit links to
// this parent thread, head and role, and it runs workflow wf. The id is
// predictable, so fetched data may have put anything there, even a
// finished thread whose output would become the parent's step.
func (r *Repo) adoptChild(ctx context.Context, id ThreadID, parent *Thread, role string, wf *WorkflowInfo) (*Thread, error) {
	t, err := r.Thread(ctx, id)
	if err != nil {
		return nil, err
	}
	link, err := r.Parent(ctx, t)
	if err != nil {
		return nil, err
	}
	want := ParentLink{Thread: parent.ID, Head: parent.Head.Commit.String(), Role: role}
	switch {
	case link == nil:
		return nil, fmt.Errorf("%w: thread %s has no Uwf-Parent link, want %s %s %s; no agent was started (remove that ref if it is not yours)",
			ErrForeignChild, id, want.Thread, want.Head, want.Role)
	case *link != want:
		return nil, fmt.Errorf("%w: thread %s links to %s %s %s, want %s %s %s; no agent was started (remove that ref if it is not yours)",
			ErrForeignChild, id, link.Thread, link.Head, link.Role, want.Thread, want.Head, want.Role)
	case t.Workflow.Name != wf.Name:
		return nil, fmt.Errorf("%w: thread %s runs workflow %s, want %s for role %q of %s; no agent was started (remove that ref if it is not yours)",
			ErrForeignChild, id, t.Workflow.Name, wf.Name, role, parent.ID)
	}
	return t, nil
}

// Parent returns the parent link of a child thread (nil for a thread
// started by hand): the Uwf-Parent trailer of its start commit.
func (r *Repo) Parent(ctx context.Context, t *Thread) (*ParentLink, error) {
	return r.parentFrom(ctx, t, t.Head.Commit)
}

// ChildStep is what a child thread produced for its parent's step.
type ChildStep struct {
	Role       string
	Child      *Thread
	Output     map[string]any
	Body       string
	EdgePrompt string
	Cwd        string
	// StartedAtMs and CompletedAtMs bound the child's run.
	StartedAtMs, CompletedAtMs int64
	// Trailers are added to the step commit (the code commits, see
	// StepCodeTrailers).
	Trailers []Trailer
}

// ErrChildOutput means a child's last output does not fit the parent
// role's schema.
var ErrChildOutput = errors.New("child output does not fit the role")

// AppendChildStep appends to t the step of a role played by a child
// thread: its output (validated against the role's schema), the child's
// deliverable as body, and the child's id in the StepNode and in an
// Uwf-Child trailer.
func (r *Repo) AppendChildStep(ctx context.Context, t *Thread, cs ChildStep) (*Entry, error) {
	schema, ok := t.Workflow.RoleSchemas[cs.Role]
	if !ok {
		return nil, fmt.Errorf("role %q is not in workflow %s", cs.Role, t.Workflow.Name)
	}
	out, err := r.Store.Put(schema, cs.Output)
	if err != nil {
		return nil, fmt.Errorf("%w: the last output of child thread %s (workflow %s) does not fit role %q of %s: %v",
			ErrChildOutput, cs.Child.ID, cs.Child.Workflow.Name, cs.Role, t.Workflow.Name, err)
	}
	sn := StepNode{Start: t.StartAlias, Prev: headStepAlias(t.Head), Role: cs.Role, Output: out.Alias,
		Agent: "workflow " + cs.Child.Workflow.Name, EdgePrompt: cs.EdgePrompt, Cwd: cs.Cwd,
		StartedAtMs: cs.StartedAtMs, CompletedAtMs: cs.CompletedAtMs, Child: cs.Child.ID}
	if strings.TrimSpace(cs.Body) != "" {
		body, err := r.Store.PutText(cs.Body)
		if err != nil {
			return nil, err
		}
		sn.Body = body.Alias
	}
	stepSchema, err := r.schema("uwf.StepNode")
	if err != nil {
		return nil, err
	}
	ref, err := r.Store.Put(stepSchema.Alias, sn)
	if err != nil {
		return nil, fmt.Errorf("store the step of child %s: %w", cs.Child.ID, err)
	}
	return r.AppendStep(ctx, t, ref, AppendOptions{ExpectedRole: cs.Role, Body: cs.Body, Child: cs.Child.ID, Trailers: cs.Trailers})
}

// Children lists the child threads named by the steps of t's chain, oldest
// first.
func (r *Repo) Children(ctx context.Context, t *Thread) ([]ThreadID, error) {
	entries, err := r.Chain(ctx, t.Head.Commit)
	if err != nil {
		return nil, err
	}
	out := []ThreadID{}
	for _, e := range entries {
		if e.Step != nil && e.Step.Child != "" {
			out = append(out, e.Step.Child)
		}
	}
	return out, nil
}

// CheckRoleWorkflows checks the roles of w that are played by workflows
// against the registry: each must name a registered workflow (or a stored
// version's alias), and none may reach w again through the roles of the
// workflows it names. Each problem is placed at the role's workflow key.
func (r *Repo) CheckRoleWorkflows(ctx context.Context, w *moderator.Workflow) []moderator.Problem {
	var out []moderator.Problem
	for _, name := range w.RoleOrder {
		role := w.Roles[name]
		if role.Workflow == "" || role.Workflow == w.Name {
			continue // the self-reference is reported by the loader
		}
		at := role.WorkflowAt
		problem := func(format string, args ...any) {
			out = append(out, moderator.Problem{File: at.File, Line: at.Line, Col: at.Col, Message: fmt.Sprintf(format, args...)})
		}
		info, err := r.FindWorkflow(ctx, role.Workflow)
		if err != nil {
			problem("role %q: workflow %q is not registered (register it first with git uwf workflow put)", name, role.Workflow)
			continue
		}
		if path := r.reaches(ctx, info, w.Name, map[string]bool{}); path != nil {
			problem("role %q: workflow %q reaches %q again (%s → %s): a workflow cannot play a role of itself",
				name, role.Workflow, w.Name, w.Name, strings.Join(path, " → "))
		}
	}
	return out
}

// reaches returns the chain of workflow names through which info's roles
// lead to the workflow named target (info's name first), nil when they do
// not.
func (r *Repo) reaches(ctx context.Context, info *WorkflowInfo, target string, seen map[string]bool) []string {
	if info.Name == target {
		return []string{target}
	}
	if seen[info.Name] {
		return nil
	}
	seen[info.Name] = true
	for _, name := range info.Workflow.RoleOrder {
		ref := info.Workflow.Roles[name].Workflow
		if ref == "" {
			continue
		}
		next, err := r.FindWorkflow(ctx, ref)
		if err != nil {
			continue
		}
		if path := r.reaches(ctx, next, target, seen); path != nil {
			return append([]string{info.Name}, path...)
		}
	}
	return nil
}

// ActiveChild returns the child thread playing t's current role (the role
// the moderator picked on t's head), nil when that role is played by an
// agent, its child has not started, or the thread at the child's id does
// not link back to t's head and role.
func (r *Repo) ActiveChild(ctx context.Context, t *Thread) (*Thread, error) {
	st, err := r.State(ctx, t)
	if err != nil {
		return nil, err
	}
	role := st.CurrentRole
	if role == "" {
		return nil, nil
	}
	if rl := t.Workflow.Workflow.Roles[role]; rl == nil || rl.Workflow == "" {
		return nil, nil
	}
	id := ChildID(t.ID, t.Head, role)
	tip, err := r.resolveRef(id.Ref())
	if err != nil || tip.IsZero() {
		return nil, err
	}
	child, err := r.Thread(ctx, id)
	if err != nil {
		return nil, err
	}
	if ok, err := r.isChildOf(ctx, child, t, role); err != nil || !ok {
		return nil, err
	}
	return child, nil
}

// isChildOf reports whether child's start commit links it to role on
// parent's head. Child ids are predictable, so a thread at one (fetched,
// or made by hand) is only taken for the child when it points back.
func (r *Repo) isChildOf(ctx context.Context, child, parent *Thread, role string) (bool, error) {
	link, err := r.Parent(ctx, child)
	if err != nil {
		return false, err
	}
	return link != nil && *link == ParentLink{Thread: parent.ID, Head: parent.Head.Commit.String(), Role: role}, nil
}

// startLinksTo reports whether the start commit start carries the
// Uwf-Parent link want: one commit read, for a child whose summary gives
// its start commit.
func (r *Repo) startLinksTo(start string, want ParentLink) bool {
	if !isSHA1Hex(start) {
		return false
	}
	c, err := gitobj.GetCommit(r.Store.Storer(), gitobj.NewHash(start))
	if err != nil || len(c.ParentHashes) != 0 {
		return false
	}
	link := parseParentTrailer(c.Message)
	return link != nil && *link == want
}

// ActiveChildID returns the id that the child thread playing s's current
// role has, or would have, on s's head (see ChildID); false when s has no
// current role. Whether a workflow plays that role is not checked.
func (s *Summary) ActiveChildID() (ThreadID, bool) {
	if s.CurrentRole == nil || !isSHA1Hex(s.HeadCommit) {
		return "", false
	}
	return childID(s.Thread, gitobj.NewHash(s.HeadCommit), s.UpdatedAt, *s.CurrentRole), true
}

// parseParentTrailer reads the Uwf-Parent trailer of a start commit's
// message: "<thread id> <40-hex head commit> <role>". Anything malformed
// (fetched data may be) is no link at all.
func parseParentTrailer(msg string) *ParentLink {
	for _, line := range strings.Split(msg, "\n") {
		v, ok := strings.CutPrefix(line, "Uwf-Parent: ")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 3 || len(f[1]) != 40 || strings.Trim(f[1], "0123456789abcdef") != "" {
			return nil
		}
		id, err := ParseThreadID(f[0])
		if err != nil || string(id) != f[0] {
			return nil
		}
		return &ParentLink{Thread: id, Head: f[1], Role: f[2]}
	}
	return nil
}

// maxChildDepth bounds how many levels of children State and List look
// through for a suspended one. Registration refuses workflow cycles, so
// real nesting is shallow; the bound only stops fetched data that nests
// deeper.
const maxChildDepth = 16

// waitOnChild overlays a suspended child on st, the state of t's head (t
// is depth levels of children below the thread asked about): when t is
// idle at a role played by a workflow and the child thread playing it is
// suspended (or itself waits for a suspended child), t is suspended at
// that role with the child's question. A child that cannot be read, or a
// thread at the child's id that does not link back to t's head and role,
// leaves st as it is: stepping t reports why.
func (r *Repo) waitOnChild(ctx context.Context, t *Thread, st *State, depth int) error {
	if st.Status != StatusIdle || depth >= maxChildDepth || !playedByWorkflow(t, st.CurrentRole) {
		return nil
	}
	id := ChildID(t.ID, t.Head, st.CurrentRole)
	tip, err := r.resolveRef(id.Ref())
	if err != nil || tip.IsZero() {
		return nil
	}
	child, err := r.ThreadAt(ctx, id, tip)
	if err != nil {
		return nil
	}
	if ok, err := r.isChildOf(ctx, child, t, st.CurrentRole); err != nil || !ok {
		return nil // not this role's child: stepping t reports it
	}
	cst, err := r.state(ctx, child, depth+1)
	if err != nil {
		return nil
	}
	if cst.Status == StatusSuspended {
		st.Status = StatusSuspended
		st.SuspendedRole = st.CurrentRole
		st.SuspendMessage = cst.SuspendMessage
		st.SuspendedChild = id
	}
	return ctx.Err()
}

// playedByWorkflow reports whether a workflow plays role in t's workflow.
func playedByWorkflow(t *Thread, role string) bool {
	rl := t.Workflow.Workflow.Roles[role]
	return rl != nil && rl.Workflow != ""
}

// suspendWaiting applies waitOnChild to a listing: sums holds every
// listed thread, strictly newest first, with its final status (running
// included). A child's status is read from its own summary, so a parent
// shows suspended exactly when its child does. Only when a suspended
// thread is at its child's id are two more reads made: the child's start
// commit, to check that it links back to the parent's head and role, and
// the parent's own thread, to check that its current role is played by a
// workflow.
func (r *Repo) suspendWaiting(ctx context.Context, sums []Summary) {
	// A child's id carries its parent's head time, a commit time: a whole
	// second. Only the few threads whose own id is on a whole second can
	// be children, so most threads are settled by one map lookup, and a
	// listing without children by this loop alone. onSecond counts the
	// threads at each such time: a thread that is alone at its own head's
	// time has no child either (a thread is never its own child), which
	// settles threads started and stepped within the same second without
	// deriving a child id.
	var onSecond map[int64]int
	for i := range sums {
		if ms := sums[i].CreatedAt.UnixMilli(); ms%1000 == 0 {
			if onSecond == nil {
				onSecond = map[int64]int{}
			}
			onSecond[ms]++
		}
	}
	if onSecond == nil {
		return
	}
	var visit func(i, depth int)
	visit = func(i, depth int) {
		s := &sums[i]
		if s.Status != StatusIdle || s.CurrentRole == nil || depth >= maxChildDepth || ctx.Err() != nil {
			return
		}
		at := int64(childMs(s.UpdatedAt))
		if n := onSecond[at]; n == 0 || n == 1 && s.CreatedAt.UnixMilli() == at || !isSHA1Hex(s.HeadCommit) {
			return // no other thread has the time of this head's children
		}
		head, role := gitobj.NewHash(s.HeadCommit), *s.CurrentRole
		id := childID(s.Thread, head, s.UpdatedAt, role)
		j := newestNotAfter(sums, id)
		if j == len(sums) || sums[j].Thread != id {
			return
		}
		visit(j, depth+1)
		if sums[j].Status != StatusSuspended {
			return
		}
		// The thread at the child's id must point back to this head and
		// role: its start commit is in its summary.
		if !r.startLinksTo(sums[j].StartCommit, ParentLink{Thread: s.Thread, Head: s.HeadCommit, Role: role}) {
			return
		}
		if t, err := r.ThreadAt(ctx, s.Thread, head); err != nil || !playedByWorkflow(t, role) {
			return
		}
		s.Status, s.SuspendedRole, s.SuspendedChild = StatusSuspended, &role, &id
	}
	for i := range sums {
		visit(i, 0)
	}
}

// newestNotAfter returns the index of the first of sums (newest first)
// whose id is not after id, len(sums) when there is none.
func newestNotAfter(sums []Summary, id ThreadID) int {
	return sort.Search(len(sums), func(k int) bool { return sums[k].Thread <= id })
}
