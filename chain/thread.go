package chain

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// This file holds the thread model: the three nodes a thread commit can
// hold, an entry (one commit of a chain) and a thread at its head. Reading
// a thread is in thread_read.go, writing one in thread_write.go, finding
// threads and steps by id or prefix in thread_find.go.

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
	Commit gitobj.Hash
	Parent gitobj.Hash
	Tree   gitobj.Hash
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
