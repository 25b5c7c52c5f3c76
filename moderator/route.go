package moderator

import (
	"fmt"
	"strings"
)

// StepView is one step of a thread as the moderator sees it.
type StepView struct {
	Role string
	// Output is the step's expanded structured output.
	Output     map[string]any
	Agent      string
	EdgePrompt string
	// Body is the step's markdown body. Version 1 templates read it as
	// _body; callers fill it when Workflow.UsesBody says so.
	Body string
}

// StartView is the start of a thread.
type StartView struct {
	Workflow string
	Prompt   string
}

// RouteContext is everything routing may look at: the thread's start and its
// steps, oldest first, with outputs expanded.
type RouteContext struct {
	Start StartView
	Steps []StepView
}

// DecisionKind says what a routing decision does.
type DecisionKind int

const (
	// Next runs another role.
	Next DecisionKind = iota + 1
	// Finish ends the workflow ($END).
	Finish
	// Pause suspends the thread ($SUSPEND) until a human resumes it.
	Pause
)

// String returns "next", "finish" or "pause".
func (k DecisionKind) String() string {
	switch k {
	case Next:
		return "next"
	case Finish:
		return "finish"
	case Pause:
		return "pause"
	default:
		return fmt.Sprintf("DecisionKind(%d)", int(k))
	}
}

// Decision is the outcome of routing.
type Decision struct {
	Kind DecisionKind
	// From is the node the edge leaves: the last step's role, or $START.
	// For Pause it is the suspending role.
	From string
	// Status is the status that selected the edge (status-map form) or the
	// previous output's "$status" when it has one (transitions form).
	Status string
	// Role is the next role; "" for Pause, End for Finish.
	Role string
	// Prompt is the rendered edge prompt (for Pause: the suspend message).
	Prompt string
	// Location is the rendered location template ("" when the edge has none).
	Location string
}

// Route picks the edge to follow after the last step of ctx (or from $START
// when there are no steps) and renders its prompt and location over the last
// step's output.
func (w *Workflow) Route(ctx RouteContext) (Decision, error) {
	from := Start
	startStatus := w.freshStart()
	var data map[string]any // made only from $START: a listing routes thousands of step heads
	body := ""
	if n := len(ctx.Steps); n > 0 {
		from = ctx.Steps[n-1].Role
		data = ctx.Steps[n-1].Output
		body = ctx.Steps[n-1].Body
		if data == nil {
			data = map[string]any{}
		}
	} else {
		data = map[string]any{statusKey: startStatus}
	}
	status, _ := data[statusKey].(string)
	if w.Version >= DialectV1 && from != Start && status == SuspendStatus {
		// The engine-level yield: the role asked for a human.
		reason, _ := data[SuspendReason].(string)
		if strings.TrimSpace(reason) == "" {
			reason = fmt.Sprintf("role %q suspended the thread without a reason", from)
		}
		return Decision{Kind: Pause, From: from, Status: status, Prompt: reason}, nil
	}
	if from == Start {
		status = startStatus
	}
	edges, ok := w.Graph[from]
	if !ok || len(edges) == 0 {
		return Decision{}, fmt.Errorf("no transitions for role %q", from)
	}

	var edge Edge
	switch w.Form {
	case Transitions:
		found := false
		env := newExprEnv(ctx)
		for _, e := range edges {
			if e.Condition == "" {
				edge, found = e, true
				break
			}
			prog := w.programs[e.Condition]
			if prog == nil {
				return Decision{}, fmt.Errorf("route from %q: unknown condition %q", from, e.Condition)
			}
			ok, err := evalCondition(e.Condition, prog, env)
			if err != nil {
				return Decision{}, fmt.Errorf("route from %q: %w", from, err)
			}
			if ok {
				edge, found = e, true
				break
			}
		}
		if !found {
			return Decision{}, fmt.Errorf("no transition matched for role %q", from)
		}
	default:
		if status == "" {
			status = DefaultStatus
		}
		found := false
		for _, e := range edges {
			if e.Status == status {
				edge, found = e, true
				break
			}
		}
		if !found {
			return Decision{}, fmt.Errorf("no transition for role %q with status %q", from, status)
		}
	}

	return w.follow(from, status, edge, data, body)
}

// follow renders the edge's prompt and location and makes the decision.
func (w *Workflow) follow(from, status string, edge Edge, data map[string]any, body string) (Decision, error) {
	prompt, err := w.renderEdge(edge.Prompt, data, body)
	if err != nil {
		return Decision{}, fmt.Errorf("route from %q: edge prompt for %q: %w", from, edge.To, err)
	}
	if strings.TrimSpace(prompt) == "" {
		return Decision{}, fmt.Errorf("edge prompt for %q rendered empty (template %q): the previous output lacks the fields it uses", edge.To, edge.Prompt)
	}
	d := Decision{From: from, Status: status, Prompt: prompt}
	switch edge.To {
	case End:
		d.Kind, d.Role = Finish, End
	case Suspend:
		d.Kind = Pause
	default:
		d.Kind, d.Role = Next, edge.To
		if edge.Location != "" {
			loc, err := w.renderEdge(edge.Location, data, body)
			if err != nil {
				return Decision{}, fmt.Errorf("route from %q: edge location for %q: %w", from, edge.To, err)
			}
			d.Location = strings.TrimSpace(loc)
		}
	}
	return d, nil
}

// freshStart is the status of the $START edge a fresh thread takes: "new"
// in version 1 and in a file of upstream's Mustache era (the older dialect
// with "new" in place of "_"), "_" otherwise.
func (w *Workflow) freshStart() string {
	if w.Version >= DialectV1 {
		return StartNew
	}
	for _, e := range w.Graph[Start] {
		if e.Status == StartNew {
			return StartNew
		}
	}
	return DefaultStatus
}

// CanResumeEnded reports whether an ended thread of this workflow can be
// resumed: its $START has a resume edge.
func (w *Workflow) CanResumeEnded() bool {
	for _, e := range w.Graph[Start] {
		if e.Status == StartResume {
			return true
		}
	}
	return false
}

// RouteResume is the decision for resuming an ended thread: the $START
// resume edge, rendered over {"$status": "resume"} (and the last step's
// body as _body in version 1). The thread continues on its own chain.
func (w *Workflow) RouteResume(ctx RouteContext) (Decision, error) {
	for _, e := range w.Graph[Start] {
		if e.Status != StartResume || w.Form != StatusMap {
			continue
		}
		body := ""
		if n := len(ctx.Steps); n > 0 {
			body = ctx.Steps[n-1].Body
		}
		return w.follow(Start, StartResume, e, map[string]any{statusKey: StartResume}, body)
	}
	return Decision{}, fmt.Errorf("workflow %s has no %s.%s edge: an ended thread of it cannot be resumed", w.Name, Start, StartResume)
}
