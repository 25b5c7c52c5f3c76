package chain

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// The Uwf-Next trailer: a step or cancel commit states what the moderator
// makes of it as a head, so that a cold listing learns a thread's state
// from its head commit instead of reading the head node, the nodes/ tree
// and the output to route it (list_batch.go).
//
// The value is one of
//
//	role <role>    the next step runs <role> (idle)
//	pause <role>   <role> suspended the thread ($SUSPEND)
//	finish         the workflow ended ($END)
//	cancel         the thread was cancelled
//
// It is the routing of the commit alone, without the thread's failed
// attempts, which a listing reads from their own ref as before. Every
// cancel commit says "cancel". A step commit carries a claim only where
// routing sees nothing but the head step (status-map workflows whose
// templates do not read the step's body) and only when it can be written
// exactly: a routing error, or a role name of other characters than
// letters, digits, '_', '-' and '$', writes none, and readers route as
// before.
//
// Like Uwf-Start it is a claim made by whoever wrote the commit. git-uwf
// writes it from the routing of the step it commits (AppendStep, Cancel);
// sync refuses a fetched chain in which a claim, or the Uwf-Node trailer
// beside it, says other than the commit holds (NextClaims), and Fork
// refuses to start a thread at such a commit. Commits written before the
// trailer existed have none.
//
// The claim holds for the routing of this version of git-uwf. A later
// version whose routing gives another answer for the same pinned workflow
// and output must stop reading this trailer (and write another), or it
// would list stale states and refuse chains git-uwf wrote.

// NextTrailer states the moderator's decision on a step or cancel commit.
const NextTrailer = "Uwf-Next"

// nodeTrailer names, by its alias, the node a commit records: on every
// thread, attempt and workflow commit git-uwf writes.
const nodeTrailer = "Uwf-Node"

// nextClaim is a parsed Uwf-Next value: the state it gives a thread whose
// head is the commit, before its failed attempts are looked at.
type nextClaim struct {
	status Status // idle, suspended, completed or cancelled
	role   string // the current role (idle) or the suspending one
}

// state is the State the claim stands for: what routedState gives before
// attempts, less the decision's rendered prompts.
func (c nextClaim) state() State {
	switch c.status {
	case StatusIdle:
		return State{Status: StatusIdle, CurrentRole: c.role}
	case StatusSuspended:
		return State{Status: StatusSuspended, SuspendedRole: c.role}
	}
	return State{Status: c.status}
}

// nextTrailerValue formats the claim for st, the state of a head that is
// not failed; false when it cannot be written exactly.
func nextTrailerValue(st State) (string, bool) {
	switch st.Status {
	case StatusIdle:
		return "role " + st.CurrentRole, isClaimedRole(st.CurrentRole)
	case StatusSuspended:
		return "pause " + st.SuspendedRole, isClaimedRole(st.SuspendedRole)
	case StatusCompleted:
		return "finish", true
	case StatusCancelled:
		return "cancel", true
	}
	return "", false
}

// parseNextTrailerValue parses an Uwf-Next value; false when it is not one.
func parseNextTrailerValue(v string) (nextClaim, bool) {
	kind, role, hasRole := strings.Cut(v, " ")
	if hasRole != (kind == "role" || kind == "pause") || hasRole && !isClaimedRole(role) {
		return nextClaim{}, false
	}
	switch kind {
	case "role":
		return nextClaim{status: StatusIdle, role: role}, true
	case "pause":
		return nextClaim{status: StatusSuspended, role: role}, true
	case "finish":
		return nextClaim{status: StatusCompleted}, true
	case "cancel":
		return nextClaim{status: StatusCancelled}, true
	}
	return nextClaim{}, false
}

// isClaimedRole reports whether a claim may name role: ASCII letters,
// digits, '_', '-' and '$' (role names as workflows spell them, and
// $START), short enough for one trailer line. Nothing in it is changed by
// message.
func isClaimedRole(role string) bool {
	if role == "" || len(role) > maxTrailerValue-len("pause ") {
		return false
	}
	for _, c := range []byte(role) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '$') {
			return false
		}
	}
	return true
}

// claimsHead reports whether the routing of a thread whose head is a step
// of w depends on that step alone, so that the step's commit may carry an
// Uwf-Next claim: conditions see the whole chain, and version 1 templates
// the step's body.
func claimsHead(w *moderator.Workflow) bool {
	return w.Form != moderator.Transitions && !w.UsesBody()
}

// nextTrailerAfterStep returns the Uwf-Next trailer of the commit of step
// sn with the given output on thread t; false when none is written.
func nextTrailerAfterStep(t *Thread, sn StepNode, output map[string]any) (Trailer, bool) {
	if !claimsHead(t.Workflow.Workflow) {
		return Trailer{}, false
	}
	d, err := t.Workflow.Workflow.Route(moderator.RouteContext{
		Start: moderator.StartView{Workflow: t.Workflow.Name, Prompt: t.Start.Prompt},
		Steps: []moderator.StepView{{Role: sn.Role, Output: output, Agent: sn.Agent, EdgePrompt: sn.EdgePrompt}},
	})
	if err != nil {
		return Trailer{}, false
	}
	v, ok := nextTrailerValue(decisionState(d))
	return Trailer{NextTrailer, v}, ok
}

// claimedNext is the claim of msg's Uwf-Next trailer and the alias its
// Uwf-Node trailer names; false when msg has no claim, or one of the two
// does not parse (the listing then reads the head node).
func claimedNext(msg string) (nextClaim, objects.Alias, bool) {
	v := trailerValue(msg, NextTrailer)
	if v == "" {
		return nextClaim{}, "", false
	}
	c, ok := parseNextTrailerValue(v)
	node := trailerValue(msg, nodeTrailer)
	if !ok || !objects.IsAlias(node) {
		return nextClaim{}, "", false
	}
	return c, objects.Alias(node), true
}

// NextClaims checks the Uwf-Next trailers of the commits of one chain, as
// sync reads a fetched chain: a commit without the trailer passes (older
// commits); one whose claim does not parse, whose Uwf-Node trailer does
// not name the commit's node, or whose claim is not what routing the
// commit gives, does not, since a listing shows the claim as the state of
// a thread whose head it is. So does a claim on a commit that pins another
// start node or workflow than its chain's root (git-uwf copies both into
// every commit), or on a step of a workflow that routes on more than the
// head step.
//
// The root's thread is read at the first claim, once: a chain without
// claims costs nothing, and each claim costs the reading of its commit's
// tree and output.
type NextClaims struct {
	r    *Repo
	id   ThreadID
	root gitobj.Hash
	// Read at the first claim: the thread as of its root, and the start
	// and workflow entries of the root's tree.
	base            *Thread
	start, workflow gitobj.Hash
	err             error
}

// NextClaims returns a checker of the claims of thread id's chain, whose
// start commit is root.
func (r *Repo) NextClaims(id ThreadID, root gitobj.Hash) *NextClaims {
	return &NextClaims{r: r, id: id, root: root}
}

// Check checks the Uwf-Next trailer of msg, the message of the commit of
// e, a commit of the chain.
func (c *NextClaims) Check(ctx context.Context, e *Entry, msg string) error {
	v := trailerValue(msg, NextTrailer)
	if v == "" {
		return nil
	}
	if c.base == nil && c.err == nil {
		c.base, c.start, c.workflow, c.err = c.r.threadWithEntries(ctx, c.id, c.root)
	}
	if c.err != nil {
		return c.err
	}
	start, workflow, err := c.r.threadEntries(e.Tree)
	if err != nil {
		return err
	}
	if start != c.start || workflow != c.workflow {
		return fmt.Errorf("it carries an %s trailer, but pins another start node or workflow than its chain's root %s", NextTrailer, c.root)
	}
	t := *c.base
	t.Head = e
	return c.r.checkNext(ctx, &t, v, msg)
}

// threadWithEntries is ThreadAt, with the start and workflow entries of
// the head's tree.
func (r *Repo) threadWithEntries(ctx context.Context, id ThreadID, head gitobj.Hash) (*Thread, gitobj.Hash, gitobj.Hash, error) {
	t, err := r.ThreadAt(ctx, id, head)
	if err != nil {
		return nil, gitobj.ZeroHash, gitobj.ZeroHash, err
	}
	start, workflow, err := r.threadEntries(t.Head.Tree)
	return t, start, workflow, err
}

// threadEntries returns the start and workflow entries of a thread
// commit's root tree.
func (r *Repo) threadEntries(tree gitobj.Hash) (start, workflow gitobj.Hash, err error) {
	t, err := gitobj.GetTree(r.Store.Storer(), tree)
	if err != nil {
		return gitobj.ZeroHash, gitobj.ZeroHash, fmt.Errorf("read tree %s: %w", tree, err)
	}
	return topEntry(t, "start"), topEntry(t, "workflow"), nil
}

// checkNext checks the Uwf-Next value v of msg, the message of t's head
// commit, t being the thread as of that commit.
func (r *Repo) checkNext(ctx context.Context, t *Thread, v, msg string) error {
	if _, ok := parseNextTrailerValue(v); !ok {
		return fmt.Errorf("malformed %s trailer %q", NextTrailer, v)
	}
	if node := trailerValue(msg, nodeTrailer); node != string(t.Head.Node.Alias) {
		return fmt.Errorf("its %s trailer %q does not name its node %s", nodeTrailer, node, t.Head.Node.Alias)
	}
	var st State
	switch {
	case t.Head.Kind == KindCancel:
		st = State{Status: StatusCancelled}
	case !claimsHead(t.Workflow.Workflow):
		return fmt.Errorf("it carries an %s trailer, but its workflow %s routes on more than the head step", NextTrailer, t.Workflow.Name)
	default:
		rc, err := r.RouteContext(ctx, t)
		if err != nil {
			return err
		}
		d, err := t.Workflow.Workflow.Route(rc)
		if err != nil {
			return fmt.Errorf("its %s trailer says %q, but routing it fails: %v", NextTrailer, v, err)
		}
		st = decisionState(d)
	}
	// A claim that parses is written one way only (FuzzNextTrailerValue).
	if want, ok := nextTrailerValue(st); !ok || want != v {
		return fmt.Errorf("its %s trailer says %q, but routing it gives %q", NextTrailer, v, want)
	}
	return nil
}
