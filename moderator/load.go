package moderator

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Load reads the workflow file at path (slash-separated, as for fs.FS) from
// fsys, then parses and validates it like [Parse].
func Load(fsys fs.FS, path string) (*Workflow, error) {
	if fsys == nil {
		return nil, fmt.Errorf("load workflow %s: no file system", path)
	}
	data, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, fmt.Errorf("load workflow: %w", err)
	}
	return Parse(fsys, path, data)
}

// Parse parses and validates the workflow YAML in data. path names the file
// in fsys: it locates error messages, resolves `!include`s relative to its
// directory, and implies a workflow name (the file stem, or the directory
// name for <dir>/index.yaml): a declared name that differs is used, with a
// note in [Workflow.Notes]. path may be empty when unknown, and fsys may be
// nil when the file has no includes.
//
// Problems are returned together as a [*ValidationError].
func Parse(fsys fs.FS, path string, data []byte) (*Workflow, error) {
	var ps problems
	l := &loader{fsys: fsys, probs: &ps}
	root := l.parseYAML(path, data, nil)
	if root == nil || l.aborted {
		return nil, ps.err()
	}
	w, src := decode(root, &ps)
	if path != "" && w.Name != "" {
		if want := nameFromPath(path); want != "" && want != w.Name {
			// A workflow is named by what it declares, in both dialects:
			// files such as x.workflow.yaml are common. The note keeps a
			// renamed file from going unnoticed.
			w.note(src.name, "file %q implies name %q; the declared name %q is used", fileLabel(path), want, w.Name)
		}
	}
	validate(w, src, &ps)
	if err := ps.err(); err != nil {
		return nil, err
	}
	sort.SliceStable(w.Notes, func(i, j int) bool {
		a, b := w.Notes[i], w.Notes[j]
		return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
	})
	return w, nil
}

// note adds a remark on an accepted file at the position of node at.
func (w *Workflow) note(at *node, format string, args ...any) {
	p := Problem{Message: fmt.Sprintf(format, args...)}
	if at != nil {
		p.File, p.Line, p.Col = at.file, at.line, at.col
	}
	w.Notes = append(w.Notes, p)
}

// fileLabel is how the name-mismatch message names a file: <dir>/index.yaml
// keeps its directory, other files are named by their base name.
func fileLabel(p string) string {
	base := path.Base(p)
	if stem := strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml"); stem == "index" {
		if d := path.Base(path.Dir(p)); d != "." && d != "/" {
			return d + "/" + base
		}
	}
	return base
}

// nameFromPath returns the workflow name a file path implies: the stem of
// x.yaml, or the directory name of <dir>/index.yaml ("" when unknown).
func nameFromPath(p string) string {
	base := path.Base(p)
	ext := path.Ext(base)
	if ext != ".yaml" && ext != ".yml" {
		return ""
	}
	stem := strings.TrimSuffix(base, ext)
	if stem == "index" {
		d := path.Base(path.Dir(p))
		if d == "." || d == "/" || d == "" {
			return ""
		}
		return d
	}
	return stem
}

// source keeps the nodes that semantic validation points its problems at.
type source struct {
	// mustacheEra is set for a file of upstream's Mustache era: the older
	// dialect with a $START "new" edge in place of "_".
	mustacheEra bool
	name        *node
	graph       *node // the graph key
	graphOK     bool  // the graph is a mapping in one form
	roles       map[string]*roleSource
	nodes       map[string]*node        // graph node keys
	edges       map[string][]edgeSource // parallel to Workflow.Graph
	conds       map[string]*condSource
}

type roleSource struct {
	key         *node
	frontmatter *node
}

type edgeSource struct {
	at        *node // the status key or the sequence item
	to        *node
	prompt    *node
	location  *node
	condition *node
}

type condSource struct {
	key        *node
	expression *node
}

// decode checks the shape of a workflow document and builds the model,
// collecting problems. It always returns a (possibly partial) workflow.
func decode(root *node, ps *problems) (*Workflow, *source) {
	w := &Workflow{
		Roles:      map[string]*Role{},
		Graph:      map[string][]Edge{},
		Conditions: map[string]Condition{},
		Form:       StatusMap,
	}
	src := &source{
		roles: map[string]*roleSource{},
		nodes: map[string]*node{},
		edges: map[string][]edgeSource{},
		conds: map[string]*condSource{},
	}
	if root.kind != mapNode {
		ps.add(root, "a workflow must be a mapping, got %s", root.kindName())
		return w, src
	}
	if v := root.get("version"); v != nil {
		w.Version = decodeVersion(v, ps)
	} else if at := inferredV1(root); at != nil {
		// The older dialect never accepted a $START without its "_" edge,
		// so reading such a file another way changes the meaning of no
		// file it accepts. Upstream named the edge "new" while its
		// prompts were still Mustache and $SUSPEND still an edge target;
		// a file that shows either is of that time: the older dialect,
		// with "new" in place of "_". Otherwise the file is read as
		// version 1, as upstream reads a file without version. Both
		// readings are made again from the stored document, which keeps
		// the file's keys and templates.
		if why := mustacheEra(root.get("graph")); why != "" {
			src.mustacheEra = true
			w.note(at, "no version key and %s has a %q edge, but the file %s: read in the older dialect, with %q in place of %q", Start, StartNew, why, StartNew, DefaultStatus)
		} else {
			w.Version = DialectV1
			w.note(at, "no version key, but %s has a %q edge and no %q edge: read as version 1 (add `version: 1` to say so)", Start, StartNew, DefaultStatus)
		}
	}
	for i, k := range root.keys {
		v := root.vals[i]
		switch key := k.keyString(); key {
		case "version":
		case "name":
			s, ok := v.str()
			if !ok {
				ps.add(v, "name must be a string, got %s", v.kindName())
			} else if s == "" {
				ps.add(v, "name must not be empty")
			}
			w.Name = s
			src.name = v
		case "description":
			w.Description = stringField(v, "description", ps)
		case "roles":
			decodeRoles(w, src, v, ps)
		case "graph":
			src.graph = k
		case "conditions":
		default:
			if w.Version >= DialectV1 {
				if strings.HasPrefix(key, "x-") {
					continue // an extension key, for YAML anchors; ignored
				}
				ps.add(k, "unknown top-level key %q (want version, name, description, roles, graph, or x-… for anchors)", key)
				continue
			}
			ps.add(k, "unknown top-level key %q (want name, description, roles, graph, conditions)", key)
		}
	}
	if root.keyNode("name") == nil {
		ps.add(root, "missing required key \"name\"")
	}
	if root.keyNode("roles") == nil {
		ps.add(root, "missing required key \"roles\"")
	}
	if g := root.get("graph"); src.graph == nil {
		ps.add(root, "missing required key \"graph\"")
	} else {
		decodeGraph(w, src, g, ps)
	}
	if ck := root.keyNode("conditions"); ck != nil {
		if w.Version >= DialectV1 {
			ps.add(ck, "conditions are not part of version 1: route by $status (graph[role][status])")
		} else if w.Form != Transitions {
			ps.add(ck, "conditions are only used by the transitions graph form (graph[node] = [edges])")
		} else {
			decodeConditions(w, src, root.get("conditions"), ps)
		}
	}
	return w, src
}

// inferredV1 returns the $START key of a file without version whose $START
// is a status map with a "new" edge and no "_" edge, or nil.
func inferredV1(root *node) *node {
	g := root.get("graph")
	start := g.get(Start)
	if start == nil || start.kind != mapNode || start.get(StartNew) == nil || start.get(DefaultStatus) != nil {
		return nil
	}
	return g.keyNode(Start)
}

// mustacheEra says why a graph is of upstream's Mustache era (an edge
// that targets $SUSPEND, or a prompt or location with a Mustache-only tag
// such as {{{x}}}), or returns "" when nothing in it is.
func mustacheEra(g *node) string {
	if g == nil || g.kind != mapNode {
		return ""
	}
	for _, edges := range g.vals {
		if edges.kind != mapNode {
			continue
		}
		for _, e := range edges.vals {
			if to, _ := e.get("role").str(); to == Suspend {
				return "has an edge to " + Suspend
			}
			for _, field := range []string{"prompt", "location"} {
				tpl, _ := e.get(field).str()
				for _, tag := range []string{"{{{", "{{#", "{{^", "{{&"} {
					if strings.Contains(tpl, tag) {
						end := "}}"
						if tag == "{{{" {
							end = "}}}"
						}
						return fmt.Sprintf("writes Mustache's %s…%s", tag, end)
					}
				}
			}
		}
	}
	return ""
}

// decodeVersion reads the top-level version: 1 is the only version there
// is; anything else is refused where it is written.
func decodeVersion(v *node, ps *problems) int {
	if n, ok := v.val.(int64); ok && v.kind == scalarNode && n == DialectV1 {
		return DialectV1
	}
	if f, ok := v.val.(float64); ok && v.file == documentFile && f == DialectV1 {
		return DialectV1 // a stored document decoded from JSON
	}
	what := v.kindName()
	if v.kind == scalarNode && v.val != nil {
		what = fmt.Sprintf("%v", v.val)
		if _, isString := v.val.(string); isString {
			what = fmt.Sprintf("%q (a string)", v.val)
		}
	}
	ps.add(v, "unsupported workflow version %s: this git-uwf reads version 1 (an integer), and files without version in the older dialect", what)
	// Go on as version 1, the closest, so the other problems make sense.
	return DialectV1
}

func stringField(v *node, what string, ps *problems) string {
	if v.isNull() {
		return ""
	}
	s, ok := v.str()
	if !ok {
		ps.add(v, "%s must be a string, got %s", what, v.kindName())
	}
	return s
}

func decodeRoles(w *Workflow, src *source, v *node, ps *problems) {
	if v.kind != mapNode {
		ps.add(v, "roles must be a mapping of role names to roles, got %s", v.kindName())
		return
	}
	if len(v.keys) == 0 {
		ps.add(v, "roles must not be empty")
		return
	}
	for i, k := range v.keys {
		name := k.keyString()
		r := &Role{Name: name}
		rs := &roleSource{key: k}
		w.Roles[name] = r
		w.RoleOrder = append(w.RoleOrder, name)
		src.roles[name] = rs
		rv := v.vals[i]
		if rv.kind != mapNode {
			ps.add(rv, "role %q must be a mapping, got %s", name, rv.kindName())
			continue
		}
		for j, fk := range rv.keys {
			fv := rv.vals[j]
			switch field := fk.keyString(); field {
			case "description":
				r.Description = stringField(fv, "description", ps)
			case "goal":
				r.Goal = stringField(fv, "goal", ps)
			case "procedure":
				r.Procedure = stringField(fv, "procedure", ps)
			case "output":
				r.Output = stringField(fv, "output", ps)
			case "capabilities":
				r.Capabilities = stringList(fv, "capabilities", ps)
			case "workflow":
				r.Workflow = stringField(fv, "workflow", ps)
				r.WorkflowAt = Pos{File: fv.file, Line: fv.line, Col: fv.col}
				if r.Workflow == "" {
					ps.add(fv, "role %q: workflow must name a registered workflow or a workflow alias", name)
				}
			case "frontmatter", "meta":
				if rs.frontmatter != nil {
					ps.add(fk, "role %q has both frontmatter and meta (meta is the old name of frontmatter)", name)
					continue
				}
				rs.frontmatter = fv
				if fv.kind != mapNode {
					ps.add(fv, "role %q: %s must be a JSON Schema mapping, got %s", name, field, fv.kindName())
					continue
				}
				r.Frontmatter, _ = fv.value().(map[string]any)
			default:
				ps.add(fk, "role %q: unknown key %q (want description, goal, capabilities, procedure, output, frontmatter)", name, field)
			}
		}
		if rs.frontmatter == nil {
			ps.add(k, "role %q has no frontmatter (the JSON Schema of its output)", name)
		}
	}
}

func stringList(v *node, what string, ps *problems) []string {
	if v.isNull() {
		return nil
	}
	if v.kind != seqNode {
		ps.add(v, "%s must be a list of strings, got %s", what, v.kindName())
		return nil
	}
	out := make([]string, 0, len(v.items))
	for _, it := range v.items {
		s, ok := it.str()
		if !ok {
			ps.add(it, "%s must be a list of strings, got %s in it", what, it.kindName())
			continue
		}
		out = append(out, s)
	}
	return out
}

func decodeGraph(w *Workflow, src *source, g *node, ps *problems) {
	if g.kind != mapNode {
		ps.add(g, "graph must be a mapping of nodes to edges, got %s", g.kindName())
		return
	}
	maps, seqs := 0, 0
	for _, v := range g.vals {
		switch v.kind {
		case mapNode:
			maps++
		case seqNode:
			seqs++
		}
	}
	if maps > 0 && seqs > 0 {
		ps.add(g, "graph mixes the status-map form (node: {status: edge}) and the transitions form (node: [edges]); use one")
		return
	}
	if seqs > 0 {
		if w.Version >= DialectV1 {
			ps.add(g, "the transitions graph form (node: [edges]) is not part of version 1: use graph[node][status] = {role, prompt}")
			return
		}
		w.Form = Transitions
	}
	src.graphOK = true
	for i, k := range g.keys {
		from := k.keyString()
		v := g.vals[i]
		w.NodeOrder = append(w.NodeOrder, from)
		src.nodes[from] = k
		w.Graph[from] = []Edge{}
		switch {
		case v.kind == mapNode && w.Form == StatusMap:
			for j, sk := range v.keys {
				e, es, ok := decodeEdge(from, v.vals[j], false, ps)
				if !ok {
					continue
				}
				e.Status = sk.keyString()
				es.at = sk
				w.Graph[from] = append(w.Graph[from], e)
				src.edges[from] = append(src.edges[from], es)
			}
		case v.kind == seqNode:
			for _, it := range v.items {
				e, es, ok := decodeEdge(from, it, true, ps)
				if !ok {
					continue
				}
				es.at = it
				w.Graph[from] = append(w.Graph[from], e)
				src.edges[from] = append(src.edges[from], es)
			}
		default:
			want := "a mapping of statuses to edges"
			if w.Form == Transitions {
				want = "a sequence of edges"
			}
			ps.add(v, "graph node %q must be %s, got %s", from, want, v.kindName())
		}
	}
}

func decodeEdge(from string, v *node, transitions bool, ps *problems) (Edge, edgeSource, bool) {
	e := Edge{From: from}
	es := edgeSource{}
	if v.kind != mapNode {
		ps.add(v, "edge from %q must be a mapping {role, prompt, ...}, got %s", from, v.kindName())
		return e, es, false
	}
	for i, k := range v.keys {
		f := v.vals[i]
		switch key := k.keyString(); key {
		case "role":
			es.to = f
			s, ok := f.str()
			if !ok {
				ps.add(f, "edge from %q: role must be a string, got %s", from, f.kindName())
			}
			e.To = s
		case "prompt":
			es.prompt = f
			s, ok := f.str()
			if !ok {
				ps.add(f, "edge from %q: prompt must be a string, got %s", from, f.kindName())
			}
			e.Prompt = s
		case "location":
			es.location = f
			e.Location = stringField(f, "edge location", ps)
		case "condition":
			if !transitions {
				ps.add(k, "edge from %q: condition is only used by the transitions graph form", from)
				continue
			}
			es.condition = f
			e.Condition = stringField(f, "edge condition", ps)
		default:
			want := "role, prompt, location"
			if transitions {
				want = "role, condition, prompt, location"
			}
			ps.add(k, "edge from %q: unknown key %q (want %s)", from, key, want)
		}
	}
	if es.to == nil {
		ps.add(v, "edge from %q has no role", from)
	}
	if es.prompt == nil {
		ps.add(v, "edge from %q has no prompt", from)
	}
	return e, es, true
}

func decodeConditions(w *Workflow, src *source, v *node, ps *problems) {
	if v.isNull() {
		return
	}
	if v.kind != mapNode {
		ps.add(v, "conditions must be a mapping of names to conditions, got %s", v.kindName())
		return
	}
	for i, k := range v.keys {
		name := k.keyString()
		c := Condition{Name: name}
		cs := &condSource{key: k}
		cv := v.vals[i]
		switch cv.kind {
		case scalarNode:
			s, ok := cv.str()
			if !ok {
				ps.add(cv, "condition %q must be an expression string or {description, expression}, got %s", name, cv.kindName())
				continue
			}
			c.Expression = s
			cs.expression = cv
		case mapNode:
			for j, fk := range cv.keys {
				fv := cv.vals[j]
				switch field := fk.keyString(); field {
				case "description":
					c.Description = stringField(fv, "description", ps)
				case "expression":
					c.Expression = stringField(fv, "expression", ps)
					cs.expression = fv
				default:
					ps.add(fk, "condition %q: unknown key %q (want description, expression)", name, field)
				}
			}
			if cs.expression == nil {
				ps.add(cv, "condition %q has no expression", name)
				cs.expression = cv
			}
		default:
			ps.add(cv, "condition %q must be an expression string or {description, expression}, got %s", name, cv.kindName())
			continue
		}
		w.Conditions[name] = c
		src.conds[name] = cs
	}
}
