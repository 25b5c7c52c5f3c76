package chain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/objects"
)

// Attempt is a step that failed: the agent crashed, timed out, or never
// produced valid output. It is recorded so that nothing an agent produced
// is lost, but the thread head does not move.
type Attempt struct {
	Role          string
	Agent         string
	Error         string
	Phase         string // "agent", "extract", "verify", …
	Stdout        string
	Stderr        string
	ExitCode      int
	StartedAtMs   int64
	CompletedAtMs int64
	// Nodes are further nodes the attempt produced (e.g. a StepNode the
	// engine rejected); they and everything they reference are kept.
	Nodes []objects.Alias
	// Step is a StepNode that passed validation but could not be
	// appended (the ref could not be moved): the attempt's tree names it
	// as "step", so that the next step on the same head can reuse it
	// instead of running the agent again.
	Step objects.Alias
}

// AttemptNode is the stored form of an Attempt.
type AttemptNode struct {
	Start         objects.Alias  `json:"start"`
	Prev          *objects.Alias `json:"prev"`
	Role          string         `json:"role"`
	Agent         string         `json:"agent"`
	Error         string         `json:"error"`
	Phase         string         `json:"phase,omitempty"`
	Stdout        objects.Alias  `json:"stdout,omitempty"`
	Stderr        objects.Alias  `json:"stderr,omitempty"`
	ExitCode      int            `json:"exitCode"`
	StartedAtMs   int64          `json:"startedAtMs"`
	CompletedAtMs int64          `json:"completedAtMs"`
}

// FailedAttempt is a recorded attempt as read back.
type FailedAttempt struct {
	Commit gitobj.Hash
	Head   gitobj.Hash // the thread head it was attempted on
	Time   time.Time
	Node   AttemptNode
	// Step is the object id of the attempt's valid but unappended
	// StepNode (zero when it has none).
	Step gitobj.Hash
}

// AttemptsRef is where a thread's failed attempts are kept.
func (id ThreadID) AttemptsRef() string { return AttemptsPrefix + string(id) }

// RecordAttempt stores a failed attempt on refs/uwf/attempts/<thread>: a
// commit whose first parent is the thread head it was tried on and whose
// second parent is the previous attempt.
func (r *Repo) RecordAttempt(ctx context.Context, t *Thread, a Attempt) (gitobj.Hash, error) {
	schema, err := r.schema("uwf.FailedAttempt")
	if err != nil {
		return gitobj.ZeroHash, err
	}
	a.Stdout, a.Stderr = clipEvidence(a.Stdout), clipEvidence(a.Stderr)
	an := AttemptNode{Start: t.StartAlias, Prev: headStepAlias(t.Head), Role: a.Role, Agent: a.Agent,
		Error: a.Error, Phase: a.Phase, ExitCode: a.ExitCode, StartedAtMs: a.StartedAtMs, CompletedAtMs: a.CompletedAtMs}
	if a.Stdout != "" {
		ref, err := r.Store.PutText(a.Stdout)
		if err != nil {
			return gitobj.ZeroHash, err
		}
		an.Stdout = ref.Alias
	}
	if a.Stderr != "" {
		ref, err := r.Store.PutText(a.Stderr)
		if err != nil {
			return gitobj.ZeroHash, err
		}
		an.Stderr = ref.Alias
	}
	ref, err := r.Store.Put(schema.Alias, an)
	if err != nil {
		return gitobj.ZeroHash, fmt.Errorf("store failed attempt: %w", err)
	}
	stop := map[objects.Alias]bool{t.StartAlias: true}
	if p := headStepAlias(t.Head); p != nil {
		stop[*p] = true
	}
	set := nodeSet{}
	if err := r.collect(set, ref.Alias, stop); err != nil {
		return gitobj.ZeroHash, err
	}
	for _, extra := range a.Nodes {
		if err := r.collect(set, extra, stop); err != nil {
			// A node the agent claimed but never wrote cannot be kept; the
			// rest still is.
			continue
		}
	}
	s := r.Store.Storer()
	tb := newTree()
	tb.blob("node", ref.OID)
	if startOID, err := treeEntry(s, t.Head.Tree, "start"); err == nil && !startOID.IsZero() {
		tb.blob("start", startOID)
	}
	tb.subtree("workflow", t.Workflow.Tree)
	tb.nodes("nodes", set)
	trailers := []Trailer{{"Uwf-Thread", string(t.ID)}, {"Uwf-Role", a.Role}, {"Uwf-Status", "failed"},
		{"Uwf-Agent", a.Agent}, {nodeTrailer, string(ref.Alias)}}
	if a.Step != "" {
		n, err := r.Store.Get(a.Step)
		if err != nil {
			return gitobj.ZeroHash, fmt.Errorf("attempt step %s: %w", a.Step, err)
		}
		tb.blob("step", n.OID)
		trailers = append(trailers, Trailer{"Uwf-Step-Node", string(a.Step)})
	}
	for name, content := range map[string]string{"error.txt": a.Error + "\n", "stdout.txt": a.Stdout, "stderr.txt": a.Stderr} {
		if content == "" {
			continue
		}
		oid, err := writeBlob(s, []byte(content))
		if err != nil {
			return gitobj.ZeroHash, err
		}
		tb.blob(name, oid)
	}
	tree, err := tb.write(s)
	if err != nil {
		return gitobj.ZeroHash, err
	}
	refName := t.ID.AttemptsRef()
	for try := 0; try < 5; try++ {
		prev, err := r.resolveRef(refName)
		if err != nil {
			return gitobj.ZeroHash, err
		}
		parents := []gitobj.Hash{t.Head.Commit}
		if !prev.IsZero() {
			parents = append(parents, prev)
		}
		msg := message(fmt.Sprintf("%s: failed — %s", a.Role, a.Error), excerpt(a.Stderr, 12), trailers...)
		commit, err := r.writeCommit(ctx, tree, parents, msg)
		if err != nil {
			return gitobj.ZeroHash, err
		}
		err = r.casRef(ctx, refName, prev, commit, "uwf: failed attempt")
		if err == nil {
			return commit, nil
		}
		var conflict *gitrepo.RefConflictError
		if !errors.As(err, &conflict) {
			return gitobj.ZeroHash, err
		}
	}
	return gitobj.ZeroHash, fmt.Errorf("record failed attempt on %s: too much contention", refName)
}

// Attempts lists the failed attempts of a thread, newest first. With
// sinceHead set, only attempts made on the thread's current head are kept.
func (r *Repo) Attempts(ctx context.Context, t *Thread, sinceHead bool) ([]FailedAttempt, error) {
	tip, err := r.resolveRef(t.ID.AttemptsRef())
	if err != nil {
		return nil, err
	}
	return r.attemptsFrom(t, tip, sinceHead)
}

// attemptsFrom is Attempts for a known attempts tip (zero: none).
func (r *Repo) attemptsFrom(t *Thread, tip gitobj.Hash, sinceHead bool) ([]FailedAttempt, error) {
	if tip.IsZero() {
		return nil, nil
	}
	s := r.Store.Storer()
	var out []FailedAttempt
	for c := tip; !c.IsZero(); {
		commit, err := gitobj.GetCommit(s, c)
		if err != nil {
			return nil, fmt.Errorf("read attempt %s: %w", c, err)
		}
		if len(commit.ParentHashes) == 0 {
			break
		}
		fa := FailedAttempt{Commit: c, Head: commit.ParentHashes[0], Time: commit.Committer.When}
		if oid, err := treeEntry(s, commit.TreeHash, "node"); err == nil && !oid.IsZero() {
			if n, err := r.Store.GetOID(oid); err == nil {
				_ = n.Decode(&fa.Node)
			}
		}
		if oid, err := treeEntry(s, commit.TreeHash, "step"); err == nil {
			fa.Step = oid
		}
		if sinceHead && fa.Head != t.Head.Commit {
			break
		}
		out = append(out, fa)
		c = gitobj.ZeroHash
		if len(commit.ParentHashes) > 1 {
			c = commit.ParentHashes[1]
		}
	}
	return out, nil
}

// MaxEvidence bounds how much of a failed agent's stdout and stderr is kept
// in its attempt record: the first and last halves, with a marker between.
const MaxEvidence = 1 << 20

func clipEvidence(s string) string {
	if len(s) <= MaxEvidence {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	half := MaxEvidence / 2
	head, tail := s[:half], s[len(s)-half:]
	return strings.ToValidUTF8(head, "\uFFFD") +
		fmt.Sprintf("\n[… %d bytes omitted by git-uwf …]\n", len(s)-2*half) +
		strings.ToValidUTF8(tail, "\uFFFD")
}
