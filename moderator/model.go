package moderator

import (
	"github.com/cbroglie/mustache"
	"github.com/expr-lang/expr/vm"
	"github.com/osteele/liquid/render"
)

// Reserved graph node names. They can never be role names.
const (
	Start   = "$START"
	End     = "$END"
	Suspend = "$SUSPEND"
)

// DefaultStatus is the status key used for $START and for outputs without a
// "$status" field.
const DefaultStatus = "_"

// The $START edges of version 1 workflows, and of the older dialect's
// optional resume edge: StartNew begins a thread, StartResume continues
// an ended one (`thread resume`).
const (
	StartNew    = "new"
	StartResume = "resume"
)

// SuspendStatus is the "$status" value with which any role of a version 1
// workflow yields: the thread is suspended with the output's SuspendReason
// as its question, whatever the role's schema allows.
const (
	SuspendStatus = "$SUSPEND"
	SuspendReason = "reason"
)

// Dialect versions. A file without a top-level `version` is DialectLegacy:
// Mustache templates, `$START: {_: …}`, $SUSPEND as a graph target.
// DialectV1 (`version: 1`) has Liquid templates, `$START: {new, resume}`,
// `x-…` anchor keys and $SUSPEND as a status any role may emit.
const (
	DialectLegacy = 0
	DialectV1     = 1
)

// GraphForm says which of the two YAML routing forms a workflow was written in.
type GraphForm string

const (
	// StatusMap is graph[role][status] = {role, prompt, location}.
	StatusMap GraphForm = "status"
	// Transitions is graph[role] = [{role, condition, prompt}] with named conditions.
	Transitions GraphForm = "conditions"
)

// Workflow is a loaded, validated workflow definition. Role schemas are kept
// inline as decoded JSON (map[string]any); callers that store a workflow in the
// object database replace them with schema aliases themselves.
type Workflow struct {
	Name        string
	Description string
	// Version is the dialect the file was written in (DialectLegacy or
	// DialectV1). It is stored with the workflow, so a pinned version
	// routes and renders the same way forever.
	Version int
	// Notes are remarks on an accepted file that are not problems, such as
	// a file name that differs from the declared name.
	Notes []Problem
	// Roles by name; RoleOrder keeps the order of the YAML file.
	Roles     map[string]*Role
	RoleOrder []string
	Form      GraphForm
	// Graph maps a source node ($START or a role) to its outgoing edges, in
	// file order. Edges are tried in order; for the status-map form the guard
	// is Edge.Status, for the transitions form it is Edge.Condition.
	Graph     map[string][]Edge
	NodeOrder []string
	// Conditions are the named conditions of the transitions form.
	Conditions map[string]Condition

	// programs holds the compiled Conditions, by name. It is filled when the
	// workflow is loaded and only read afterwards.
	programs map[string]*vm.Program
	// templates holds the compiled edge templates (prompts and locations
	// that use variables), by their text. Filled and then only read, like
	// programs; a template missing here is compiled when it is rendered.
	templates map[string]*mustache.Template
	// liquid holds the compiled Liquid templates of a version 1 workflow,
	// like templates.
	liquid map[string]render.Node
	// usesBody says whether a Liquid template mentions _body, so that
	// routing needs the last step's body.
	usesBody bool
}

// Role is one role of a workflow.
type Role struct {
	Name         string
	Description  string
	Goal         string
	Capabilities []string
	Procedure    string
	Output       string
	// Frontmatter is the JSON Schema (decoded JSON) the role's output must satisfy.
	Frontmatter map[string]any
	// Workflow, when set, names the workflow (a registered name or the
	// alias of a stored version) that plays this role: a child thread of
	// it runs to completion and its last output is this role's output.
	Workflow string
	// WorkflowAt is where Workflow was written (zero for documents).
	WorkflowAt Pos
}

// Pos is a position in a workflow file.
type Pos struct {
	File      string
	Line, Col int
}

// Edge is one outgoing transition of a graph node.
type Edge struct {
	From string
	To   string // a role, End or Suspend
	// Status is the guard of a status-map edge ("_" for the default edge).
	Status string
	// Condition names the guard of a transitions edge; "" matches always.
	Condition string
	// Prompt and Location are templates over the previous output: Mustache
	// in the older dialect, Liquid in version 1.
	Prompt   string
	Location string
}

// Condition is a named boolean expression over {start, steps}.
type Condition struct {
	Name        string
	Description string
	Expression  string
}
