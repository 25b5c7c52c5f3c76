package moderator

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cbroglie/mustache"
	"github.com/expr-lang/expr/vm"
	"github.com/osteele/liquid/render"
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
			if w.Version >= DialectV1 && schemaOK[name] {
				schemaOK[name] = checkV1Schema(name, r.Frontmatter, rs.frontmatter, ps)
			}
		}
		if r := w.Roles[name]; r.Workflow != "" && r.Workflow == w.Name {
			ps.addFile(r.WorkflowAt.File, r.WorkflowAt.Line, r.WorkflowAt.Col,
				"role %q is played by workflow %q, which is this workflow: a workflow cannot reach itself", name, r.Workflow)
		}
	}

	if !src.graphOK {
		return // the graph's shape is wrong; that is reported already
	}

	// Graph nodes.
	if _, ok := w.Graph[Start]; !ok {
		ps.add(src.graph, "graph has no %s node", Start)
	} else {
		checkStartEdges(w, src, ps)
	}
	for _, from := range w.NodeOrder {
		k := src.nodes[from]
		switch {
		case from == Suspend && w.Version >= DialectV1:
			ps.add(k, "%s is not a graph node in version 1: a role yields with `$status: %s` and a `reason`", Suspend, SuspendStatus)
		case from == End || from == Suspend:
			ps.add(k, "%s is a terminal node and cannot have outgoing edges", from)
		case from == Start:
		case w.Roles[from] == nil:
			ps.add(k, "unknown role %q", from)
		}
	}

	// Edge targets, prompts, templates and conditions. The sample
	// renderings of all Liquid templates share one budget.
	checkBudget := newLiquidBudget()
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
				case e.To == Suspend && w.Version >= DialectV1:
					ps.add(es.to, "edge %s: %s is not an edge target in version 1: a role yields with `$status: %s` and a `reason` in its output", label, Suspend, SuspendStatus)
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
			checkEdgeTemplates(w, from, e, es, label, schemaOK, src.mustacheEra, checkBudget, ps)
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
		for _, name := range slices.Sorted(maps.Keys(w.Conditions)) {
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
				switch {
				case w.Version >= DialectV1 && (strings.Contains(tpl, "{{") || strings.Contains(tpl, "{%")):
					_, _ = w.compileLiquid(tpl) // usually compiled by the check above
				case w.Version < DialectV1 && strings.Contains(tpl, "{{"):
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
// A variable in a $START edge is an error in the older dialect, but only a
// note in version 1 and in a file of upstream's Mustache era (upstreamEra):
// upstream renders it empty.
func checkEdgeTemplates(w *Workflow, from string, e Edge, es edgeSource, label string, schemaOK map[string]bool, upstreamEra bool, budget *liquidBudget, ps *problems) {
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
		var unknown []string
		var err error
		if w.Version >= DialectV1 {
			var compiled render.Node
			if compiled, err = w.compileLiquid(t.tpl); err == nil {
				unknown, err = checkLiquid(compiled, props, budget)
			}
		} else {
			var compiled *mustache.Template
			if compiled, err = w.compileTemplate(t.tpl); err == nil {
				unknown, err = checkTemplate(compiled, props)
			}
		}
		if err != nil {
			ps.add(t.at, "edge %s: invalid %s template: %v", label, t.what, err)
			continue
		}
		if !check {
			continue
		}
		for _, name := range unknown {
			switch {
			case from == Start && (w.Version >= DialectV1 || upstreamEra):
				// Upstream renders a $START variable as nothing and
				// its files have them (PR #{{ prNumber }}): say so, but
				// load the file.
				w.note(t.at, "edge %s: %s uses variable %q, but %s edges have no variables: it renders empty", label, t.what, name, Start)
			case from == Start:
				ps.add(t.at, "edge %s: %s uses variable %q, but %s edges have no variables", label, t.what, name, Start)
			default:
				ps.add(t.at, "edge %s: %s uses unknown variable %q (not a property of role %q's output)", label, t.what, name, from)
			}
		}
	}
}

// checkStartEdges checks the edges of $START. The older dialect's status
// map has exactly one edge keyed "_" (and may add a resume edge); version
// 1 has a new edge and may have a resume edge.
func checkStartEdges(w *Workflow, src *source, ps *problems) {
	edges := w.Graph[Start]
	at := src.nodes[Start]
	switch {
	case w.Form == Transitions:
		if len(edges) == 0 {
			ps.add(at, "%s has no edges", Start)
		}
	case w.Version >= DialectV1:
		hasNew := false
		for i, e := range edges {
			switch e.Status {
			case StartNew:
				hasNew = true
			case StartResume:
			default:
				ps.add(src.edges[Start][i].at, "%s edges are keyed %q (a fresh thread) and %q (an ended thread resumed), not %q", Start, StartNew, StartResume, e.Status)
			}
		}
		if !hasNew {
			ps.add(at, "%s has no %q edge (the edge a fresh thread takes)", Start, StartNew)
		}
	default:
		// "new" stands for "_" in a file of upstream's Mustache era, the
		// only way a "new" edge without a "_" edge reaches the older
		// dialect.
		defaults, others := 0, 0
		for _, e := range edges {
			switch {
			case e.Status == DefaultStatus, e.Status == StartNew && src.mustacheEra:
				defaults++
			case e.Status == StartResume:
			default:
				others++
			}
		}
		if defaults != 1 || others > 0 {
			ps.add(at, "%s must have exactly one edge, keyed %q", Start, DefaultStatus)
		}
	}
}

// checkV1Schema adds the version 1 rules for a frontmatter schema: every
// role declares its $status values, and none defines _body (the Liquid
// variable of the previous step's body) or uses the reserved $SUSPEND.
func checkV1Schema(role string, schema map[string]any, at *node, ps *problems) bool {
	ok := true
	props := topProperties(schema, "")
	if _, has := props[BodyVariable]; has {
		ps.add(at, "role %q: frontmatter must not define %q: templates use it for the previous step's body", role, BodyVariable)
		ok = false
	}
	if _, has := props[statusKey]; !has {
		ps.add(at, "role %q: version 1 frontmatter must declare $status (a const, or a const per oneOf variant)", role)
		return false
	}
	if statuses, err := schemaStatuses(schema); err == nil {
		for _, st := range statuses {
			if st == SuspendStatus {
				ps.add(at, "role %q: $status %q is reserved: any role may yield with it, no schema lists it", role, SuspendStatus)
				ok = false
			}
		}
	}
	return ok
}
