package moderator

import (
	"errors"
	"fmt"
	neturl "net/url"
	"strings"

	"github.com/git-uwf/git-uwf/internal/jsonschema"
)

// statusKey is the output field that selects a status-map edge.
const statusKey = "$status"

// compileSchema compiles a frontmatter schema, loading no external
// documents, to check that it is a valid schema. Nothing is validated
// against it here (objects does that, with the uwf_ref format), so the
// format needs no registration.
func compileSchema(role string, schema map[string]any) (*jsonschema.Schema, error) {
	url := "uwf:///roles/" + neturl.PathEscape(role) + ".json"
	return jsonschema.Compile(url, schema, jsonschema.Config{
		Refuse: func(url string) error {
			return fmt.Errorf("loading %s: remote and file references are not allowed in frontmatter schemas", url)
		},
	})
}

// schemaError flattens a schema compile error into one line.
func schemaError(err error) string {
	if v, ok := jsonschema.SchemaViolations(err); ok {
		return strings.Join(v, "; ")
	}
	return jsonschema.OneLine(err.Error())
}

// variants returns the oneOf/anyOf alternatives of a schema.
func variants(schema map[string]any) []map[string]any {
	var out []map[string]any
	for _, k := range []string{"oneOf", "anyOf"} {
		list, _ := schema[k].([]any)
		for _, v := range list {
			if m, ok := v.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func properties(schema map[string]any) map[string]any {
	p, _ := schema["properties"].(map[string]any)
	return p
}

// statusValues returns the $status values a (sub)schema allows through its
// properties.$status const or enum, and whether it declares $status at all.
func statusValues(schema map[string]any) (vals []string, declared bool, err error) {
	prop, ok := properties(schema)[statusKey]
	if !ok {
		return nil, false, nil
	}
	p, ok := prop.(map[string]any)
	if !ok {
		return nil, true, errors.New("properties.$status must be a schema mapping")
	}
	if c, ok := p["const"]; ok {
		s, ok := c.(string)
		if !ok {
			return nil, true, fmt.Errorf("$status const must be a string, got %v", c)
		}
		return []string{s}, true, nil
	}
	if e, ok := p["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			return nil, true, errors.New("$status enum must be a non-empty list of strings")
		}
		for _, x := range list {
			s, ok := x.(string)
			if !ok {
				return nil, true, fmt.Errorf("$status enum values must be strings, got %v", x)
			}
			vals = append(vals, s)
		}
		return vals, true, nil
	}
	return nil, true, errors.New("properties.$status must list its values with const or enum")
}

// schemaStatuses returns the set of $status values a role's frontmatter
// allows, in schema order: a flat $status const/enum, the consts of the
// oneOf/anyOf variants, or {"_"} when the schema has no $status.
func schemaStatuses(schema map[string]any) ([]string, error) {
	vals, declared, err := statusValues(schema)
	if err != nil {
		return nil, err
	}
	if declared {
		return dedupe(vals), nil
	}
	vs := variants(schema)
	if len(vs) == 0 {
		return []string{DefaultStatus}, nil
	}
	var out []string
	found := false
	for i, v := range vs {
		vals, declared, err := statusValues(v)
		if err != nil {
			return nil, fmt.Errorf("variant %d: %w", i+1, err)
		}
		if !declared {
			continue
		}
		found = true
		if len(vals) != 1 {
			return nil, fmt.Errorf("variant %d: $status must be a single const", i+1)
		}
		out = append(out, vals[0])
	}
	if !found {
		return []string{DefaultStatus}, nil
	}
	if len(out) != len(vs) {
		return nil, errors.New("every oneOf/anyOf variant must fix $status with a const when one does")
	}
	return dedupe(out), nil
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// topProperties returns the names of the top-level properties an output can
// have: the schema's own properties, plus — when status is "" — those of all
// variants, or those of the variant whose $status const equals status.
func topProperties(schema map[string]any, status string) map[string]map[string]any {
	out := map[string]map[string]any{}
	add := func(s map[string]any) {
		for k, v := range properties(s) {
			m, _ := v.(map[string]any)
			if _, ok := out[k]; !ok || m != nil {
				out[k] = m
			}
		}
	}
	add(schema)
	for _, v := range variants(schema) {
		if status != "" {
			vals, declared, err := statusValues(v)
			if err != nil || (declared && (len(vals) != 1 || vals[0] != status)) {
				continue
			}
		}
		add(v)
	}
	return out
}

// subProperties returns the properties reachable inside a section over prop:
// an object's properties or an array's items' properties.
func subProperties(prop map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	if prop == nil {
		return out
	}
	src := prop
	if items, ok := prop["items"].(map[string]any); ok {
		src = items
	}
	for k, v := range properties(src) {
		m, _ := v.(map[string]any)
		out[k] = m
	}
	return out
}
