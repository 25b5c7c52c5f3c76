package moderator

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cbroglie/mustache"
	"github.com/osteele/liquid/render"
)

// noPartials refuses every partial: templates never read files.
type noPartials struct{}

func (noPartials) Get(name string) (string, error) {
	return "", fmt.Errorf("partial %q: partials are not supported in edge templates", name)
}

// parseTemplate compiles an edge template. Variables are never HTML-escaped:
// forceRaw makes {{x}} behave like {{{x}}}.
func parseTemplate(tpl string) (*mustache.Template, error) {
	t, err := mustache.ParseStringPartialsRaw(tpl, noPartials{}, true)
	if err != nil {
		return nil, err
	}
	t.Escape(func(s string) string { return s })
	return t, nil
}

// renderTemplate renders tpl over data without HTML escaping. Missing
// variables render as empty strings.
func renderTemplate(tpl string, data map[string]any) (string, error) {
	return renderCompiled(nil, tpl, data)
}

// compileTemplate parses tpl once per workflow while it is loaded and
// validated, keeping the result for routing; it must not be called after
// loading, when w is shared.
func (w *Workflow) compileTemplate(tpl string) (*mustache.Template, error) {
	if t := w.templates[tpl]; t != nil {
		return t, nil
	}
	t, err := parseTemplate(tpl)
	if err != nil {
		return nil, err
	}
	if w.templates == nil {
		w.templates = map[string]*mustache.Template{}
	}
	w.templates[tpl] = t
	return t, nil
}

// render is renderTemplate with the workflow's compiled templates.
func (w *Workflow) render(tpl string, data map[string]any) (string, error) {
	return renderCompiled(w.templates[tpl], tpl, data)
}

// renderEdge renders an edge template of w over data: Mustache in the
// older dialect, Liquid (with body as _body) in version 1.
func (w *Workflow) renderEdge(tpl string, data map[string]any, body string) (string, error) {
	if w.Version >= DialectV1 {
		return w.renderLiquid(tpl, data, body)
	}
	return w.render(tpl, data)
}

// compileLiquid is compileTemplate for version 1 workflows.
func (w *Workflow) compileLiquid(tpl string) (render.Node, error) {
	if t := w.liquid[tpl]; t != nil {
		return t, nil
	}
	t, err := parseLiquid(tpl)
	if err != nil {
		return nil, err
	}
	if w.liquid == nil {
		w.liquid = map[string]render.Node{}
	}
	w.liquid[tpl] = t
	if strings.Contains(tpl, BodyVariable) {
		w.usesBody = true
	}
	return t, nil
}

// renderLiquid renders a Liquid template, compiling it when the workflow
// has not (a template is compiled on load whenever it has tags).
func (w *Workflow) renderLiquid(tpl string, data map[string]any, body string) (string, error) {
	if !strings.Contains(tpl, "{{") && !strings.Contains(tpl, "{%") {
		return tpl, nil
	}
	t := w.liquid[tpl]
	if t == nil {
		var err error
		if t, err = parseLiquid(tpl); err != nil {
			return "", fmt.Errorf("parse template %q: %w", tpl, err)
		}
	}
	out, err := renderLiquid(t, data, body, false)
	if err != nil {
		return "", fmt.Errorf("render template %q: %w", tpl, err)
	}
	return out, nil
}

// UsesBody reports whether the workflow's templates read _body, the last
// step's markdown body; routing needs it only then.
func (w *Workflow) UsesBody() bool { return w.usesBody }

// renderCompiled renders tpl, compiling it first when t is nil.
func renderCompiled(t *mustache.Template, tpl string, data map[string]any) (string, error) {
	if !strings.Contains(tpl, "{{") {
		return tpl, nil
	}
	if t == nil {
		var err error
		if t, err = parseTemplate(tpl); err != nil {
			return "", fmt.Errorf("parse template %q: %w", tpl, err)
		}
	}
	if data == nil {
		data = map[string]any{}
	}
	out, err := t.Render(data)
	if err != nil {
		return "", fmt.Errorf("render template %q: %w", tpl, err)
	}
	return out, nil
}

// templateRef is one variable or section name a template uses.
type templateRef struct {
	name string
	// scope lists the section names enclosing the reference, outermost first.
	scope []string
}

// templateRefs parses tpl and lists the names it refers to. Partials are
// an error.
func templateRefs(t *mustache.Template) ([]templateRef, error) {
	var refs []templateRef
	var walk func(tags []mustache.Tag, scope []string) error
	walk = func(tags []mustache.Tag, scope []string) error {
		for _, tag := range tags {
			switch tag.Type() {
			case mustache.Variable:
				refs = append(refs, templateRef{name: tag.Name(), scope: scope})
			case mustache.Section, mustache.InvertedSection:
				refs = append(refs, templateRef{name: tag.Name(), scope: scope})
				inner := scope
				if tag.Type() == mustache.Section {
					inner = append(append([]string(nil), scope...), tag.Name())
				}
				if err := walk(tag.Tags(), inner); err != nil {
					return err
				}
			case mustache.Partial:
				return errors.New("partials ({{>name}}) are not supported")
			}
		}
		return nil
	}
	if err := walk(t.Tags(), nil); err != nil {
		return nil, err
	}
	return refs, nil
}

// checkTemplate reports the template's syntax errors and the names it uses
// that the previous output cannot have. props are the top-level properties of
// the previous role's output; nil props means no variables at all ($START).
func checkTemplate(t *mustache.Template, props map[string]map[string]any) (unknown []string, err error) {
	refs, err := templateRefs(t)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, r := range refs {
		if r.name == "." || r.name == statusKey || strings.HasPrefix(r.name, statusKey+".") {
			continue
		}
		first, _, _ := strings.Cut(r.name, ".")
		if _, ok := props[first]; ok {
			continue
		}
		if inSectionScope(first, r.scope, props) {
			continue
		}
		if !seen[r.name] {
			seen[r.name] = true
			unknown = append(unknown, r.name)
		}
	}
	return unknown, nil
}

// inSectionScope says whether name is a property of one of the enclosing
// sections' values (object properties or array item properties).
func inSectionScope(name string, scope []string, props map[string]map[string]any) bool {
	cur := props
	for _, s := range scope {
		first, rest, dotted := strings.Cut(s, ".")
		prop, ok := cur[first]
		if !ok {
			// The section itself refers to an enclosing scope or is
			// unknown (reported on its own); keep the current scope.
			continue
		}
		for dotted && prop != nil {
			var seg string
			seg, rest, dotted = strings.Cut(rest, ".")
			prop = subProperties(prop)[seg]
		}
		sub := subProperties(prop)
		if _, ok := sub[name]; ok {
			return true
		}
		merged := map[string]map[string]any{}
		for k, v := range cur {
			merged[k] = v
		}
		for k, v := range sub {
			merged[k] = v
		}
		cur = merged
	}
	return false
}
