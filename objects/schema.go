package objects

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/git-uwf/git-uwf/internal/jsonschema"
)

// Format names that mark a string as a reference to a node.
const (
	FormatRef         = "uwf_ref"
	FormatRefUpstream = "ocas_ref"
)

// MetaSchemaTitle is the title of the meta-schema payload.
const MetaSchemaTitle = "uwf meta-schema"

// metaSchemaJSON is the payload of the self-typed meta-schema node. Changing a
// single byte changes its alias and therefore every schema's type: don't.
const metaSchemaJSON = `{"description":"A uwf schema node: a JSON Schema document (draft 2020-12 unless $schema says otherwise). References to other nodes are strings with format uwf_ref.","properties":{"$schema":{"type":"string"},"description":{"type":"string"},"title":{"type":"string"}},"title":"uwf meta-schema","type":["object","boolean"]}`

// textSchemaJSON is the payload of the built-in text schema.
const textSchemaJSON = `{"title":"text","type":"string"}`

// schemaBaseURL is where compiled schemas pretend to live; nothing is ever
// loaded from it.
const schemaBaseURL = "https://uwf.invalid/schemas/"

// metaBlob returns the blob bytes of the meta-schema node. metaSchemaJSON is
// kept in canonical form (a test checks it).
func metaBlob() []byte {
	return encodeCanonicalNode("", []byte(metaSchemaJSON))
}

// MetaSchemaAlias returns the alias of the meta-schema node. It is the same
// in every repository.
func MetaSchemaAlias() Alias { return AliasOf(metaBlob()) }

// schemaConfig is how node schemas compile: formats asserted, the reference
// formats known, nothing loaded from outside.
func schemaConfig() jsonschema.Config {
	return jsonschema.Config{
		AssertFormat: true,
		Formats: map[string]func(any) error{
			FormatRef:         validateRefFormat,
			FormatRefUpstream: validateRefFormat,
		},
		Refuse: func(url string) error {
			return fmt.Errorf("loading external schema %s is not allowed", url)
		},
	}
}

func validateRefFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	if !IsAlias(s) {
		return fmt.Errorf("%q is not a canonical alias (13 upper-case Crockford base32 characters, first 0-F)", s)
	}
	return nil
}

// compileSchema compiles a schema document (decoded by jsonschema.Decode)
// under the given alias.
func compileSchema(a Alias, doc any) (*jsonschema.Schema, error) {
	sch, err := jsonschema.Compile(schemaBaseURL+string(a)+".json", doc, schemaConfig())
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", a, err)
	}
	return sch, nil
}

// schemaError turns a compile failure into a ValidationError against the
// meta-schema.
func schemaError(meta Alias, err error) *ValidationError {
	v, ok := jsonschema.SchemaViolations(err)
	if !ok {
		v = []string{"at /: schema does not compile: " + jsonschema.OneLine(err.Error())}
	} else {
		for i := range v {
			v[i] = "schema does not compile: " + v[i]
		}
	}
	return &ValidationError{Type: meta, Title: MetaSchemaTitle, Violations: v}
}

// schemaTitle returns the "title" of a schema document, if any.
func schemaTitle(doc any) string {
	if m, ok := doc.(map[string]any); ok {
		if t, ok := m["title"].(string); ok {
			return t
		}
	}
	return ""
}

// refMapper rewrites every reference string in a value as directed by a
// schema: strings at positions whose sub-schema has format uwf_ref/ocas_ref.
type refMapper struct {
	root any               // the whole schema document, for local $ref
	fn   func(a Alias) any // replacement for a reference
	res  map[string]*regexp.Regexp
}

const maxRefDepth = 512

func (m *refMapper) mapValue(sch, v any, depth int) any {
	if v == nil || depth > maxRefDepth {
		return v
	}
	s, ok := sch.(map[string]any)
	if !ok {
		return v // boolean schema or garbage: nothing to follow
	}
	if ref, ok := s["$ref"].(string); ok {
		if target, ok := m.resolveLocal(ref); ok {
			v = m.mapValue(target, v, depth+1)
		}
	}
	if f, _ := s["format"].(string); f == FormatRef || f == FormatRefUpstream {
		if str, ok := v.(string); ok && IsAlias(str) {
			return m.fn(Alias(str))
		}
	}
	switch val := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		pats, _ := s["patternProperties"].(map[string]any)
		addl, hasAddl := s["additionalProperties"]
		for _, k := range sortedKeys(val) {
			item := val[k]
			matched := false
			if ps, ok := props[k]; ok {
				matched = true
				item = m.mapValue(ps, item, depth+1)
			}
			for _, pat := range sortedKeys(pats) {
				ps := pats[pat]
				if re := m.regexp(pat); re != nil && re.MatchString(k) {
					matched = true
					item = m.mapValue(ps, item, depth+1)
				}
			}
			if !matched && hasAddl {
				item = m.mapValue(addl, item, depth+1)
			}
			val[k] = item
		}
	case []any:
		prefix, _ := s["prefixItems"].([]any)
		items, hasItems := s["items"]
		if arr, ok := items.([]any); ok { // draft 7 tuple form
			prefix, items, hasItems = arr, s["additionalItems"], s["additionalItems"] != nil
		}
		for i := range val {
			switch {
			case i < len(prefix):
				val[i] = m.mapValue(prefix[i], val[i], depth+1)
			case hasItems:
				val[i] = m.mapValue(items, val[i], depth+1)
			}
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if subs, ok := s[kw].([]any); ok {
			for _, sub := range subs {
				v = m.mapValue(sub, v, depth+1)
			}
		}
	}
	for _, kw := range []string{"if", "then", "else"} {
		if sub, ok := s[kw]; ok {
			v = m.mapValue(sub, v, depth+1)
		}
	}
	return v
}

func (m *refMapper) regexp(pat string) *regexp.Regexp {
	if re, ok := m.res[pat]; ok {
		return re
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		re = nil
	}
	if m.res == nil {
		m.res = map[string]*regexp.Regexp{}
	}
	m.res[pat] = re
	return re
}

// resolveLocal resolves "#" and "#/json/pointer" against the root document.
func (m *refMapper) resolveLocal(ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	frag := ref[1:]
	cur := m.root
	if frag == "" {
		return cur, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// decodeAny decodes canonical JSON payload bytes to plain Go values.
func decodeAny(data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// sortedKeys returns the keys of m in canonical (UTF-16 code unit) order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
	})
	return keys
}
