package moderator

import (
	"github.com/cbroglie/mustache"
	"github.com/expr-lang/expr/vm"
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
	// Prompt and Location are Mustache templates over the previous output.
	Prompt   string
	Location string
}

// Condition is a named boolean expression over {start, steps}.
type Condition struct {
	Name        string
	Description string
	Expression  string
}
