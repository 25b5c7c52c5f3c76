package moderator

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/expr-lang/expr/vm"
)

var roleNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`) })

func isReserved(name string) bool { return name == Start || name == End || name == Suspend }

// edgeLabel names an edge in messages: "planner.ready -> worker" (status
// map) or "reviewer[1] -> developer" (transitions).
func edgeLabel(w *Workflow, e Edge, i int) string {
	if w.Form == Transitions {
		return fmt.Sprintf("%s[%d] -> %s", e.From, i, e.To)
	}
	return fmt.Sprintf("%s.%s -> %s", e.From, e.Status, e.To)
}

// validate runs the semantic checks over a decoded workflow, adding every
// problem to ps, and compiles the conditions into w.programs.
func validate(w *Workflow, src *source, ps *problems) {
	// Role names and schemas.
	schemaOK := map[string]bool{}
	for _, name := range w.RoleOrder {
		rs := src.roles[name]
		switch {
		case isReserved(name):
			ps.add(rs.key, "%q is reserved and cannot be a role name", name)
		case !roleNameRE().MatchString(name):
			ps.add(rs.key, "invalid role name %q: must match %s", name, roleNameRE().String())
		}
		if r := w.Roles[name]; r.Frontmatter != nil {
			schemaOK[name] = checkSchema(name, r.Frontmatter, rs.frontmatter, ps)
		}
	}

	if !src.graphOK {
		return // the graph's shape is wrong; that is reported already
	}

	// Graph nodes.
	if _, ok := w.Graph[Start]; !ok {
		ps.add(src.graph, "graph has no %s node", Start)
	} else {
		edges := w.Graph[Start]
		switch {
		case w.Form == StatusMap && (len(edges) != 1 || edges[0].Status != DefaultStatus):
			ps.add(src.nodes[Start], "%s must have exactly one edge, keyed %q", Start, DefaultStatus)
		case w.Form == Transitions && len(edges) == 0:
			ps.add(src.nodes[Start], "%s has no edges", Start)
		}
	}
	for _, from := range w.NodeOrder {
		k := src.nodes[from]
		switch {
		case from == End || from == Suspend:
			ps.add(k, "%s is a terminal node and cannot have outgoing edges", from)
		case from == Start:
		case w.Roles[from] == nil:
			ps.add(k, "unknown role %q", from)
		}
	}

	// Edge targets, prompts, templates and conditions.
	for _, from := range w.NodeOrder {
		if from == End || from == Suspend {
			continue
		}
		for i, e := range w.Graph[from] {
			es := src.edges[from][i]
			label := edgeLabel(w, e, i)
			if es.to != nil {
				switch {
				case e.To == "":
					if _, ok := es.to.str(); ok {
						ps.add(es.to, "edge %s: empty role", label)
					}
				case e.To == Start:
					ps.add(es.to, "edge %s: %s cannot be an edge target", label, Start)
				case e.To == End || e.To == Suspend:
				case w.Roles[e.To] == nil:
					ps.add(es.to, "unknown role %q", e.To)
				}
			}
			if es.prompt != nil && strings.TrimSpace(e.Prompt) == "" {
				if _, ok := es.prompt.str(); ok {
					ps.add(es.prompt, "edge %s: prompt is empty", label)
				}
			}
			checkEdgeTemplates(w, from, e, es, label, schemaOK, ps)
			if w.Form == Transitions && e.Condition != "" {
				if _, ok := w.Conditions[e.Condition]; !ok {
					ps.add(es.condition, "edge %s: unknown condition %q", label, e.Condition)
				}
			}
		}
	}

	// Conditions compile.
	if len(w.Conditions) > 0 {
		w.programs = map[string]*vm.Program{}
		for _, name := range sortedKeys(w.Conditions) {
			c := w.Conditions[name]
			prog, err := compileCondition(c.Expression)
			if err != nil {
				ps.add(src.conds[name].expression, "condition %q: invalid expression %q: %v", name, c.Expression, err)
				continue
			}
			w.programs[name] = prog
		}
	}

	// Edge templates compile once; routing renders them for every thread a
	// listing summarises.
	for _, edges := range w.Graph {
		for _, e := range edges {
			for _, tpl := range []string{e.Prompt, e.Location} {
				if strings.Contains(tpl, "{{") {
					_, _ = w.compileTemplate(tpl) // usually compiled by the check above
				}
			}
		}
	}

	// Every role is a graph node and reachable from $START.
	reached := map[string]bool{Start: true}
	queue := []string{Start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range w.Graph[n] {
			if w.Roles[e.To] != nil && !reached[e.To] {
				reached[e.To] = true
				queue = append(queue, e.To)
			}
		}
	}
	for _, name := range w.RoleOrder {
		if isReserved(name) {
			continue
		}
		rs := src.roles[name]
		if _, ok := w.Graph[name]; !ok {
			ps.add(rs.key, "role %q has no outgoing edges in graph", name)
		}
		if !reached[name] {
			ps.add(rs.key, "role %q is not reachable from %s", name, Start)
		}
	}

	// Status keys (status-map form).
	if w.Form == StatusMap {
		for _, from := range w.NodeOrder {
			r := w.Roles[from]
			if r == nil || !schemaOK[from] {
				continue
			}
			checkStatusKeys(w, from, src, ps)
		}
	}
}

// checkSchema checks that a frontmatter is an object JSON Schema that
// compiles; problems point at the frontmatter node.
func checkSchema(role string, schema map[string]any, at *node, ps *problems) bool {
	ok := true
	_, hasType := schema["type"]
	_, hasOneOf := schema["oneOf"]
	_, hasAnyOf := schema["anyOf"]
	if !hasType && !hasOneOf && !hasAnyOf {
		ps.add(at, "role %q: frontmatter must be an object schema with \"type\" or \"oneOf\"/\"anyOf\"", role)
		ok = false
	}
	if t, isString := schema["type"].(string); isString && t != "object" {
		ps.add(at, "role %q: frontmatter must describe an object, not %q", role, t)
		ok = false
	}
	if _, err := compileSchema(role, schema); err != nil {
		ps.add(at, "role %q: invalid frontmatter schema: %s", role, schemaError(err))
		return false
	}
	if _, err := schemaStatuses(schema); err != nil {
		ps.add(at, "role %q: frontmatter $status: %v", role, err)
		ok = false
	}
	return ok
}

func checkStatusKeys(w *Workflow, from string, src *source, ps *problems) {
	r := w.Roles[from]
	statuses, err := schemaStatuses(r.Frontmatter)
	if err != nil {
		return // reported by checkSchema
	}
	if len(statuses) > 1 {
		for _, s := range statuses {
			if s == DefaultStatus {
				ps.add(src.roles[from].frontmatter, "role %q: status %q is only for single-exit roles", from, DefaultStatus)
				break
			}
		}
	}
	want := map[string]bool{}
	for _, s := range statuses {
		want[s] = true
	}
	have := map[string]bool{}
	var extra []string
	for _, e := range w.Graph[from] {
		have[e.Status] = true
		if !want[e.Status] {
			extra = append(extra, e.Status)
		}
	}
	var missing []string
	for _, s := range statuses {
		if !have[s] {
			missing = append(missing, s)
		}
	}
	at := src.nodes[from]
	if len(missing) > 0 {
		ps.add(at, "role %q: missing status keys: %s", from, strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		ps.add(at, "role %q: extra status keys: %s", from, strings.Join(extra, ", "))
	}
}

// checkEdgeTemplates checks the syntax of an edge's prompt and location
// templates and that every variable is a property of the previous output.
func checkEdgeTemplates(w *Workflow, from string, e Edge, es edgeSource, label string, schemaOK map[string]bool, ps *problems) {
	var props map[string]map[string]any
	check := from == Start
	if r := w.Roles[from]; r != nil && schemaOK[from] {
		status := ""
		if w.Form == StatusMap {
			status = e.Status
		}
		props = topProperties(r.Frontmatter, status)
		check = true
	}
	for _, t := range []struct {
		what string
		tpl  string
		at   *node
	}{{"prompt", e.Prompt, es.prompt}, {"location", e.Location, es.location}} {
		if t.tpl == "" {
			continue
		}
		compiled, err := w.compileTemplate(t.tpl)
		var unknown []string
		if err == nil {
			unknown, err = checkTemplate(compiled, props)
		}
		if err != nil {
			ps.add(t.at, "edge %s: invalid %s template: %v", label, t.what, err)
			continue
		}
		if !check {
			continue
		}
		for _, name := range unknown {
			if from == Start {
				ps.add(t.at, "edge %s: %s uses variable %q, but %s edges have no variables", label, t.what, name, Start)
			} else {
				ps.add(t.at, "edge %s: %s uses unknown variable %q (not a property of role %q's output)", label, t.what, name, from)
			}
		}
	}
}
