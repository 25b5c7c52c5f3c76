package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
)

// metaViolations returns the rules of the draft's meta-schema that the
// decoded schema document doc breaks, one "at /json/pointer: message" line
// each, in document order with object keys sorted; nil when doc is a valid
// schema of that draft. doc is a value from Decode; draft is "2020-12",
// "2019-09", "draft-07", "draft-06" or "draft-04" (anything else is read as
// 2020-12).
//
// The rules are those the meta-schemas state, including the formats they
// name ("uri", "uri-reference", "regex"), which are checked as assertions.
// Keywords a draft does not know are allowed, as in the meta-schemas. The
// root's "$schema" is not read (the caller chooses the draft), but a
// subschema that is a resource of its own, naming a draft in "$schema" and
// having that draft's identifier, is checked against that draft alone.
func metaViolations(doc any, draft string) []string {
	var out []string
	for _, r := range metaRules(doc, draft) {
		out = append(out, "at "+r.at+": "+r.msg)
	}
	return out
}

// A metaRule is one broken rule of a meta-schema.
type metaRule struct {
	at  string // JSON pointer to the offending value
	msg string
}

// metaRules returns the broken rules that metaViolations formats.
func metaRules(doc any, draft string) []metaRule {
	m := metaCheck{ver: draftVersion(draft)}
	m.schema(doc)
	return m.out
}

// draftVersion maps a draft name to a number that orders the drafts.
func draftVersion(draft string) int {
	switch draft {
	case "draft-04":
		return 4
	case "draft-06":
		return 6
	case "draft-07":
		return 7
	case "2019-09":
		return 2019
	}
	return 2020
}

// metaCheck walks one schema document, collecting broken rules.
type metaCheck struct {
	ver  int      // draft version: 4, 6, 7, 2019, 2020
	path []string // reference tokens of the value being checked
	out  []metaRule
}

func (m *metaCheck) fail(format string, args ...any) {
	m.out = append(m.out, metaRule{Pointer(m.path), OneLine(fmt.Sprintf(format, args...))})
}

func (m *metaCheck) push(tok string) { m.path = append(m.path, tok) }
func (m *metaCheck) pop()            { m.path = m.path[:len(m.path)-1] }

// schema checks v at a position that holds a schema.
func (m *metaCheck) schema(v any) {
	m.schemaOr(v, "")
}

// schemaOr checks v as a schema; a value that is no schema at all is
// reported as wanting a schema or else the alternative named by or.
func (m *metaCheck) schemaOr(v any, or string) {
	switch s := v.(type) {
	case map[string]any:
		m.object(s)
		return
	case bool:
		if m.ver > 4 {
			return
		}
	}
	want := "a schema (object or boolean)"
	if m.ver == 4 {
		want = "a schema object"
	}
	if or != "" {
		want += " or " + or
	}
	m.fail("got %s, want %s", jsonType(v), want)
}

// object checks the keywords of a schema object.
func (m *metaCheck) object(s map[string]any) {
	if len(m.path) > 0 {
		// An embedded resource that names its own draft answers to
		// that draft's meta-schema alone.
		if ver, ok := embeddedDraft(s); ok && ver != m.ver {
			outer := m.ver
			m.ver = ver
			defer func() { m.ver = outer }()
		}
	}
	if m.ver == 4 {
		// Draft-04 makes each exclusive bound depend on its bound.
		for _, p := range [...][2]string{{"exclusiveMaximum", "maximum"}, {"exclusiveMinimum", "minimum"}} {
			_, excl := s[p[0]]
			_, bound := s[p[1]]
			if excl && !bound {
				m.fail("%s needs %s", p[0], p[1])
			}
		}
	}
	var buf [16]string
	for _, k := range appendSortedKeys(buf[:0], s) {
		m.push(k)
		m.keyword(k, s[k])
		m.pop()
	}
}

// keyword checks the value of keyword k of a schema object; m.path ends at
// the value.
func (m *metaCheck) keyword(k string, v any) {
	switch k {
	case "title", "description", "format":
		m.isString(v)
	case "$comment", "contentMediaType", "contentEncoding":
		if m.ver >= 7 {
			m.isString(v)
		}
	case "readOnly", "writeOnly":
		if m.ver >= 7 {
			m.isBool(v)
		}
	case "deprecated":
		if m.ver >= 2019 {
			m.isBool(v)
		}
	case "examples":
		if m.ver >= 7 {
			if _, ok := v.([]any); !ok {
				m.fail("got %s, want array", jsonType(v))
			}
		}
	case "uniqueItems":
		m.isBool(v)
	case "multipleOf":
		m.positiveNumber(v)
	case "maximum", "minimum":
		m.isNumber(v)
	case "exclusiveMaximum", "exclusiveMinimum":
		if m.ver == 4 {
			m.isBool(v)
		} else {
			m.isNumber(v)
		}
	case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
		m.count(v)
	case "maxContains", "minContains":
		if m.ver >= 2019 {
			m.count(v)
		}
	case "pattern":
		if s, ok := m.isString(v); ok {
			if msg := regexProblem(s); msg != "" {
				m.fail("%s", msg)
			}
		}
	case "additionalItems":
		switch {
		case m.ver == 4:
			if _, ok := v.(bool); !ok {
				m.schemaOr(v, "boolean")
			}
		case m.ver < 2020:
			m.schema(v)
		}
	case "items":
		if m.ver == 2020 {
			m.schema(v)
		} else if _, ok := v.([]any); ok {
			m.schemaArray(v)
		} else {
			m.schemaOr(v, "an array of schemas")
		}
	case "prefixItems":
		if m.ver == 2020 {
			m.schemaArray(v)
		}
	case "allOf", "anyOf", "oneOf":
		m.schemaArray(v)
	case "not":
		m.schema(v)
	case "contains", "propertyNames":
		if m.ver >= 6 {
			m.schema(v)
		}
	case "if", "then", "else":
		if m.ver >= 7 {
			m.schema(v)
		}
	case "unevaluatedItems", "unevaluatedProperties", "contentSchema":
		if m.ver >= 2019 {
			m.schema(v)
		}
	case "additionalProperties":
		if m.ver > 4 {
			m.schema(v)
		} else if _, ok := v.(bool); !ok {
			m.schemaOr(v, "boolean")
		}
	case "definitions", "properties":
		m.schemaMap(v)
	case "$defs", "dependentSchemas":
		if m.ver >= 2019 {
			m.schemaMap(v)
		}
	case "patternProperties":
		if obj, ok := v.(map[string]any); ok && m.ver >= 7 {
			for _, name := range sortedKeys(obj) {
				if msg := regexProblem(name); msg != "" {
					m.fail("property name %s", msg)
				}
			}
		}
		m.schemaMap(v)
	case "dependencies":
		obj, ok := m.isObject(v)
		if !ok {
			return
		}
		for _, name := range sortedKeys(obj) {
			m.push(name)
			if _, ok := obj[name].([]any); ok {
				m.stringArray(obj[name], m.ver == 4)
			} else {
				m.schemaOr(obj[name], "an array of property names")
			}
			m.pop()
		}
	case "dependentRequired":
		if m.ver < 2019 {
			return
		}
		obj, ok := m.isObject(v)
		if !ok {
			return
		}
		for _, name := range sortedKeys(obj) {
			m.push(name)
			m.stringArray(obj[name], false)
			m.pop()
		}
	case "required":
		m.stringArray(v, m.ver == 4)
	case "enum":
		arr, ok := v.([]any)
		if !ok {
			m.fail("got %s, want array", jsonType(v))
			return
		}
		if m.ver < 2019 {
			if len(arr) == 0 {
				m.fail("got an empty array, want at least one value")
			}
			if i, j, ok := firstDuplicate(arr); ok {
				m.fail("values %d and %d are equal", i, j)
			}
		}
	case "type":
		m.types(v)
	case "$ref":
		if s, ok := m.isString(v); ok && m.ver >= 6 {
			m.uriReference(s)
		}
	case "id":
		if m.ver == 4 {
			m.isString(v)
		}
	case "$id":
		if m.ver < 6 {
			return
		}
		if s, ok := m.isString(v); ok && m.uriReference(s) && m.ver >= 2019 {
			if _, frag, ok := strings.Cut(s, "#"); ok && frag != "" {
				m.fail("%s has a non-empty fragment", quote(s))
			}
		}
	case "$schema":
		if s, ok := m.isString(v); ok {
			m.absoluteURI(s)
		}
	case "$anchor":
		if m.ver >= 2019 {
			m.anchor(v)
		}
	case "$dynamicAnchor":
		if m.ver == 2020 {
			m.anchor(v)
		}
	case "$dynamicRef":
		if m.ver == 2020 {
			if s, ok := m.isString(v); ok {
				m.uriReference(s)
			}
		}
	case "$recursiveRef":
		if m.ver >= 2019 {
			if s, ok := m.isString(v); ok {
				m.uriReference(s)
			}
		}
	case "$recursiveAnchor":
		switch m.ver {
		case 2019:
			m.isBool(v)
		case 2020:
			m.anchor(v)
		}
	case "$vocabulary":
		if m.ver < 2019 {
			return
		}
		obj, ok := m.isObject(v)
		if !ok {
			return
		}
		for _, name := range sortedKeys(obj) {
			if msg := uriProblem(name, true); msg != "" {
				m.fail("vocabulary %s", msg)
			}
		}
		for _, name := range sortedKeys(obj) {
			m.push(name)
			m.isBool(obj[name])
			m.pop()
		}
	}
}

// embeddedDraft returns the draft of a schema object that is a resource of
// its own: it names a draft in "$schema" and has an identifier in that
// draft's keyword ("id" in draft-04; before 2019-09, not beside "$ref").
func embeddedDraft(s map[string]any) (int, bool) {
	uri, ok := s["$schema"].(string)
	if !ok {
		return 0, false
	}
	ver, ok := draftOfURI(uri)
	if !ok {
		return 0, false
	}
	idKeyword := "$id"
	if ver == 4 {
		idKeyword = "id"
	}
	if _, ref := s["$ref"]; ref && ver < 2019 {
		return 0, false
	}
	id, _ := s[idKeyword].(string)
	if base, _, _ := strings.Cut(id, "#"); base == "" {
		return 0, false
	}
	return ver, true
}

// draftOfURI returns the draft version a "$schema" URI names: a draft's
// meta-schema URI, with or without a scheme; with a fragment (any), only
// with its http or https scheme.
func draftOfURI(uri string) (int, bool) {
	uri, frag, _ := strings.Cut(uri, "#")
	rest, ok := strings.CutPrefix(uri, "http://")
	if !ok {
		rest, ok = strings.CutPrefix(uri, "https://")
	}
	if !ok && frag != "" {
		return 0, false
	}
	uri = rest
	switch uri {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema":
		return 2020, true
	case "json-schema.org/draft/2019-09/schema":
		return 2019, true
	case "json-schema.org/draft-07/schema":
		return 7, true
	case "json-schema.org/draft-06/schema":
		return 6, true
	case "json-schema.org/draft-04/schema":
		return 4, true
	}
	return 0, false
}

func (m *metaCheck) isString(v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		m.fail("got %s, want string", jsonType(v))
	}
	return s, ok
}

func (m *metaCheck) isObject(v any) (map[string]any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		m.fail("got %s, want object", jsonType(v))
	}
	return obj, ok
}

func (m *metaCheck) isBool(v any) {
	if _, ok := v.(bool); !ok {
		m.fail("got %s, want boolean", jsonType(v))
	}
}

func (m *metaCheck) isNumber(v any) bool {
	if !isNumber(v) {
		m.fail("got %s, want number", jsonType(v))
		return false
	}
	return true
}

// positiveNumber checks a number greater than zero.
func (m *metaCheck) positiveNumber(v any) {
	if !isNumber(v) {
		m.fail("got %s, want a number greater than 0", jsonType(v))
		return
	}
	r, ok := toRat(v)
	switch {
	case !ok:
		m.fail("got %v (exponent too large), want a number greater than 0", v)
	case r.Sign() <= 0:
		m.fail("got %v, want a number greater than 0", v)
	}
}

// count checks a non-negative integer.
func (m *metaCheck) count(v any) {
	if n, ok := v.(json.Number); ok && n != "" && strings.Trim(string(n), "0123456789") == "" {
		return // plain digits, the common case, need no math/big
	}
	if !isNumber(v) {
		m.fail("got %s, want a non-negative integer", jsonType(v))
		return
	}
	r, ok := toRat(v)
	switch {
	case !ok:
		m.fail("got %v (exponent too large), want a non-negative integer", v)
	case !r.IsInt() || r.Sign() < 0:
		m.fail("got %v, want a non-negative integer", v)
	}
}

// schemaArray checks a non-empty array of schemas.
func (m *metaCheck) schemaArray(v any) {
	arr, ok := v.([]any)
	if !ok {
		m.fail("got %s, want a non-empty array of schemas", jsonType(v))
		return
	}
	if len(arr) == 0 {
		m.fail("got an empty array, want at least one schema")
	}
	for i, item := range arr {
		m.push(strconv.Itoa(i))
		m.schema(item)
		m.pop()
	}
}

// schemaMap checks an object whose values are schemas.
func (m *metaCheck) schemaMap(v any) {
	obj, ok := v.(map[string]any)
	if !ok {
		m.fail("got %s, want an object of schemas", jsonType(v))
		return
	}
	for _, name := range sortedKeys(obj) {
		m.push(name)
		m.schema(obj[name])
		m.pop()
	}
}

// stringArray checks an array of unique strings, non-empty when nonEmpty.
func (m *metaCheck) stringArray(v any, nonEmpty bool) {
	arr, ok := v.([]any)
	if !ok {
		m.fail("got %s, want an array of strings", jsonType(v))
		return
	}
	if nonEmpty && len(arr) == 0 {
		m.fail("got an empty array, want at least one string")
	}
	for i, item := range arr {
		if _, ok := item.(string); !ok {
			m.push(strconv.Itoa(i))
			m.fail("got %s, want string", jsonType(item))
			m.pop()
		}
	}
	if i, j, ok := firstDuplicate(arr); ok {
		if s, ok := arr[i].(string); ok {
			m.fail("%s is listed twice (items %d and %d)", quote(s), i, j)
		} else {
			m.fail("items %d and %d are equal", i, j)
		}
	}
}

// types checks the value of "type": a type name or a non-empty array of
// unique type names.
func (m *metaCheck) types(v any) {
	switch t := v.(type) {
	case string:
		if !isTypeName(t) {
			m.fail("%s is not a type name (%s)", quote(t), metaTypeNames)
		}
	case []any:
		if len(t) == 0 {
			m.fail("got an empty array, want at least one type name")
		}
		for i, item := range t {
			s, ok := item.(string)
			if ok && isTypeName(s) {
				continue
			}
			m.push(strconv.Itoa(i))
			if ok {
				m.fail("%s is not a type name (%s)", quote(s), metaTypeNames)
			} else {
				m.fail("got %s, want a type name", jsonType(item))
			}
			m.pop()
		}
		if i, j, ok := firstDuplicate(t); ok {
			m.fail("items %d and %d are equal", i, j)
		}
	default:
		m.fail("got %s, want a type name or an array of type names", jsonType(v))
	}
}

// metaTypeNames lists the names "type" allows.
const metaTypeNames = "array, boolean, integer, null, number, object, string"

func isTypeName(s string) bool {
	switch s {
	case "array", "boolean", "integer", "null", "number", "object", "string":
		return true
	}
	return false
}

// anchor checks a plain-name anchor: a string of the draft's syntax.
func (m *metaCheck) anchor(v any) {
	s, ok := m.isString(v)
	if !ok {
		return
	}
	valid := s != ""
	for i, c := range s {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		switch {
		case letter:
		case i == 0:
			// 2020-12 also lets an anchor start with '_'.
			valid = valid && m.ver == 2020 && c == '_'
		case '0' <= c && c <= '9', c == '-', c == '.', c == '_':
		case c == ':':
			valid = valid && m.ver == 2019
		default:
			valid = false
		}
	}
	if !valid {
		if m.ver == 2019 {
			m.fail("%s is not an anchor name (a letter, then letters, digits, '-', '.', ':' or '_')", quote(s))
		} else {
			m.fail("%s is not an anchor name (a letter or '_', then letters, digits, '-', '.' or '_')", quote(s))
		}
	}
}

// uriReference checks s is a URI reference, and reports whether it is.
func (m *metaCheck) uriReference(s string) bool {
	if msg := uriProblem(s, false); msg != "" {
		m.fail("%s", msg)
		return false
	}
	return true
}

func (m *metaCheck) absoluteURI(s string) {
	if msg := uriProblem(s, true); msg != "" {
		m.fail("%s", msg)
	}
}

// uriProblem says what is wrong with s as a URI (absolute) or a URI
// reference, "" when nothing is.
func uriProblem(s string, absolute bool) string {
	what := "a URI reference"
	if absolute {
		what = "an absolute URI"
	}
	if !absolute && strings.Contains(s, `\`) {
		return fmt.Sprintf("%s is not %s: it contains a backslash", quote(s), what)
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Sprintf("%s is not %s: %v", quote(s), what, err)
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return fmt.Sprintf("%s is not %s: IPv6 host not in brackets", quote(s), what)
		}
		if a, err := netip.ParseAddr(host); err != nil || a.Zone() != "" {
			return fmt.Sprintf("%s is not %s: bad IPv6 host", quote(s), what)
		}
	}
	if absolute && !u.IsAbs() {
		return fmt.Sprintf("%s is not %s: it has no scheme", quote(s), what)
	}
	return ""
}

// regexProblem says why s does not compile as a regular expression, ""
// when it does.
func regexProblem(s string) string {
	_, err := regexp.Compile(s)
	if err == nil {
		return ""
	}
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s is not a regular expression: %s", quote(s), se.Code)
	}
	return fmt.Sprintf("%s is not a regular expression: %v", quote(s), err)
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	if isNumber(v) {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// firstDuplicate returns the indexes i < j of the first pair of equal
// items, ordered by j.
func firstDuplicate(arr []any) (i, j int, ok bool) {
	for j := 1; j < len(arr); j++ {
		for i := 0; i < j; i++ {
			if equal(arr[i], arr[j]) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// appendSortedKeys appends the keys of obj to keys, sorted.
func appendSortedKeys(keys []string, obj map[string]any) []string {
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
