package moderator

import (
	"encoding/json"
	"fmt"
)

// documentFile names a stored document in problems.
const documentFile = "<document>"

// Document returns the workflow as a JSON-able payload, in the workflow's own
// graph form:
//
//	{name, description,
//	 roles: {r: {description, goal, capabilities, procedure, output, frontmatter[, workflow]}},
//	 graph: {node: {status: {role, prompt, location}}}          // status map
//	 graph: {node: [{role, condition, prompt, location}]},      // transitions
//	 conditions: {name: {description, expression}}}             // transitions only
//
// An empty location or condition is null. Schemas are inline. A version 1
// workflow also has {version: 1}.
func (w *Workflow) Document() map[string]any {
	roles := map[string]any{}
	for name, r := range w.Roles {
		caps := make([]any, len(r.Capabilities))
		for i, c := range r.Capabilities {
			caps[i] = c
		}
		var fm any
		if r.Frontmatter != nil {
			fm = deepCopy(r.Frontmatter)
		}
		role := map[string]any{
			"description":  r.Description,
			"goal":         r.Goal,
			"capabilities": caps,
			"procedure":    r.Procedure,
			"output":       r.Output,
			"frontmatter":  fm,
		}
		// Only when set, so that every other workflow keeps its hash.
		if r.Workflow != "" {
			role["workflow"] = r.Workflow
		}
		roles[name] = role
	}
	orNull := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	graph := map[string]any{}
	for from, edges := range w.Graph {
		if w.Form == Transitions {
			list := make([]any, len(edges))
			for i, e := range edges {
				list[i] = map[string]any{
					"role":      e.To,
					"condition": orNull(e.Condition),
					"prompt":    e.Prompt,
					"location":  orNull(e.Location),
				}
			}
			graph[from] = list
			continue
		}
		m := map[string]any{}
		for _, e := range edges {
			m[e.Status] = map[string]any{
				"role":     e.To,
				"prompt":   e.Prompt,
				"location": orNull(e.Location),
			}
		}
		graph[from] = m
	}
	doc := map[string]any{
		"name":        w.Name,
		"description": w.Description,
		"roles":       roles,
		"graph":       graph,
	}
	if w.Version != DialectLegacy {
		// Only version 1 documents carry a version: the older dialect's
		// documents (and so their aliases) are what they always were.
		doc["version"] = w.Version
	}
	if w.Form == Transitions {
		conds := map[string]any{}
		for name, c := range w.Conditions {
			conds[name] = map[string]any{"description": c.Description, "expression": c.Expression}
		}
		doc["conditions"] = conds
	}
	return doc
}

// FromDocument rebuilds a workflow from a payload made by [Workflow.Document]
// (or decoded from its JSON) and validates it like [Parse]. The document's
// maps have no order, so RoleOrder and NodeOrder come out sorted, as do the
// edges of a status-map node.
func FromDocument(doc map[string]any) (*Workflow, error) {
	if doc == nil {
		return nil, fmt.Errorf("workflow document is nil")
	}
	var ps problems
	l := &loader{probs: &ps}
	root, err := l.fromValue(doc, documentFile, 0, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("workflow document: %w", err)
	}
	w, src := decode(root, &ps)
	validate(w, src, &ps)
	if err := ps.err(); err != nil {
		return nil, err
	}
	return w, nil
}

// Statuses returns the $status values role's frontmatter allows (["_"] for a
// single-exit role without $status), or nil when the role is unknown.
func (w *Workflow) Statuses(role string) []string {
	r := w.Roles[role]
	if r == nil {
		return nil
	}
	s, err := schemaStatuses(r.Frontmatter)
	if err != nil {
		return nil
	}
	return s
}

// Schema returns a copy of role's frontmatter JSON Schema, or nil when the
// role is unknown.
func (w *Workflow) Schema(role string) map[string]any {
	r := w.Roles[role]
	if r == nil || r.Frontmatter == nil {
		return nil
	}
	m, _ := deepCopy(r.Frontmatter).(map[string]any)
	return m
}

// deepCopy copies a tree of JSON values.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[k] = deepCopy(v)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, v := range x {
			s[i] = deepCopy(v)
		}
		return s
	case json.Number:
		return x
	default:
		return x
	}
}
