package agentkit

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/git-uwf/git-uwf/internal/text"
	"gopkg.in/yaml.v3"
)

// bodyPlaceholder stands for the agent's markdown work in example blocks.
const bodyPlaceholder = "(your markdown work goes here)"

// OutputFormatInstruction renders the "## Deliverable Format" section that
// tells an agent how to shape its answer for a role whose output must satisfy
// schema: a YAML frontmatter block first, then markdown.
//
// The section shows an example block with one line per field: enums show
// their first value and list all values in a comment, booleans show
// "true  # true | false", strings "<string>", numbers "<number>", objects
// "<object>", arrays one "- <item>" entry, consts their literal value, and a
// nullable type its non-null form. Required fields are marked "required".
// When the schema's oneOf/anyOf variants share a constant discriminant
// (normally "$status"), one example per variant is shown under a heading
// "### When `$status: <value>`" and the agent is asked to choose one. The
// section ends with the rule to output only the listed fields and a scope
// reminder.
func OutputFormatInstruction(schema map[string]any) string {
	w := schemaWalker{root: schema}
	var b strings.Builder
	b.WriteString("## Deliverable Format\n\n")
	b.WriteString("Start your response with a YAML frontmatter block, then put your markdown work after it.")

	if disc, variants := w.variants(schema); len(variants) > 0 {
		b.WriteString(" Choose ONE of the following variants, depending on the outcome of your work.\n\n")
		for _, v := range variants {
			fmt.Fprintf(&b, "### When `%s: %s`\n\n", yamlKey(disc), yamlScalar(v.value))
			if v.description != "" {
				b.WriteString(v.description + "\n\n")
			}
			writeExample(&b, w, v.fields)
			b.WriteString("Fields for this variant:\n\n")
			writeFieldList(&b, w, v.fields)
			b.WriteString("\n")
		}
		b.WriteString("Put only the fields listed for the variant you chose into the frontmatter; any other field is dropped.\n\n")
	} else {
		b.WriteString("\n\n")
		fields := w.flatFields(schema)
		writeExample(&b, w, fields)
		if len(fields) == 0 {
			b.WriteString("This role's schema defines no fields, so the frontmatter block may stay empty, but it must be there.\n\n")
		} else {
			b.WriteString("The engine reads the frontmatter directly: it is the primary deliverable of this step. Fields:\n\n")
			writeFieldList(&b, w, fields)
			b.WriteString("\nPut only these fields into the frontmatter; any other field is dropped.\n\n")
		}
	}
	b.WriteString("Stay within your role: deliver this role's part of the work only and leave everything else to the roles responsible for it.\n")
	return b.String()
}

// fieldSpec is one top-level output field.
type fieldSpec struct {
	name     string
	schema   map[string]any
	required bool
}

// variantSpec is one oneOf/anyOf variant with its discriminant value.
type variantSpec struct {
	value       any
	description string
	fields      []fieldSpec
}

// objectShape collects the properties and required names of s and of its
// allOf parts (not of anyOf/oneOf).
type objectShape struct {
	names    []string
	props    map[string]map[string]any
	required map[string]bool
}

func (w schemaWalker) shape(s map[string]any, depth int) objectShape {
	sh := objectShape{props: map[string]map[string]any{}, required: map[string]bool{}}
	w.addShape(&sh, s, depth)
	return sh
}

func (w schemaWalker) addShape(sh *objectShape, s map[string]any, depth int) {
	for part := range w.parts(s, depth, allOfKeys) {
		props, _ := part["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			p, _ := props[name].(map[string]any)
			if _, seen := sh.props[name]; !seen {
				sh.names = append(sh.names, name)
			}
			sh.props[name] = p
		}
		for _, r := range stringList(part["required"]) {
			sh.required[r] = true
		}
	}
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// variantList returns the oneOf (or else anyOf) variants of s, without
// pure-null variants.
func (w schemaWalker) variantList(s map[string]any) []map[string]any {
	s = w.resolve(s)
	if s == nil {
		return nil
	}
	list := schemaList(s["oneOf"])
	if len(list) == 0 {
		list = schemaList(s["anyOf"])
	}
	var out []map[string]any
	for _, v := range list {
		v = w.resolve(v)
		if v != nil && !isNullSchema(v) {
			out = append(out, v)
		}
	}
	return out
}

// variants splits schema into discriminated variants. It returns no variants
// when the schema has fewer than two oneOf/anyOf variants or they share no
// constant property.
func (w schemaWalker) variants(schema map[string]any) (string, []variantSpec) {
	list := w.variantList(schema)
	if len(list) < 2 {
		return "", nil
	}
	base := w.shape(schema, 0)
	shapes := make([]objectShape, len(list))
	for i, v := range list {
		sh := w.shape(v, 1)
		merged := objectShape{props: map[string]map[string]any{}, required: map[string]bool{}}
		for _, n := range base.names {
			merged.names = append(merged.names, n)
			merged.props[n] = base.props[n]
		}
		for _, n := range sh.names {
			if _, ok := merged.props[n]; !ok {
				merged.names = append(merged.names, n)
			}
			merged.props[n] = sh.props[n]
		}
		for r := range base.required {
			merged.required[r] = true
		}
		for r := range sh.required {
			merged.required[r] = true
		}
		shapes[i] = merged
	}
	candidates := []string{"$status"}
	for _, sh := range shapes {
		candidates = append(candidates, sh.names...)
	}
	for _, disc := range candidates {
		values := make([]any, len(shapes))
		ok := true
		for i, sh := range shapes {
			v, isConst := w.constValue(sh.props[disc])
			if !isConst {
				ok = false
				break
			}
			values[i] = v
		}
		if !ok {
			continue
		}
		out := make([]variantSpec, len(shapes))
		for i, sh := range shapes {
			names := append([]string{disc}, without(sh.names, disc)...)
			fields := make([]fieldSpec, 0, len(names))
			for _, n := range names {
				fields = append(fields, fieldSpec{name: n, schema: sh.props[n], required: sh.required[n]})
			}
			out[i] = variantSpec{value: values[i], description: text.OneLine(describe(list[i])), fields: fields}
		}
		return disc, out
	}
	return "", nil
}

// flatFields lists the fields of a schema without discriminated variants:
// its own and allOf properties, plus the union of oneOf/anyOf properties.
// A variant-only field is required when every variant requires it.
func (w schemaWalker) flatFields(schema map[string]any) []fieldSpec {
	sh := w.shape(schema, 0)
	list := w.variantList(schema)
	var vshapes []objectShape
	for _, v := range list {
		vs := w.shape(v, 1)
		vshapes = append(vshapes, vs)
		for _, n := range vs.names {
			if _, ok := sh.props[n]; !ok {
				sh.names = append(sh.names, n)
				sh.props[n] = vs.props[n]
			}
		}
	}
	for _, n := range sh.names {
		if sh.required[n] || len(vshapes) == 0 {
			continue
		}
		all := true
		for _, vs := range vshapes {
			if !vs.required[n] {
				all = false
				break
			}
		}
		if all {
			sh.required[n] = true
		}
	}
	names := sh.names
	if _, ok := sh.props["$status"]; ok {
		names = append([]string{"$status"}, without(names, "$status")...)
	}
	fields := make([]fieldSpec, 0, len(names))
	for _, n := range names {
		fields = append(fields, fieldSpec{name: n, schema: sh.props[n], required: sh.required[n]})
	}
	return fields
}

func without(list []string, drop string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

func isNullSchema(s map[string]any) bool {
	if t, ok := s["type"].(string); ok && t == "null" {
		return true
	}
	if c, ok := s["const"]; ok && c == nil {
		return true
	}
	return false
}

// constValue reports the single value a property schema allows (const, or
// an enum of one value).
func (w schemaWalker) constValue(s map[string]any) (any, bool) {
	s = w.nonNull(s, 0)
	if s == nil {
		return nil, false
	}
	if c, ok := s["const"]; ok {
		return c, true
	}
	if e := enumValues(s); len(e) == 1 {
		return e[0], true
	}
	return nil, false
}

// nonNull resolves $refs and strips a nullable wrapper: an anyOf/oneOf with a
// single non-null variant becomes that variant.
func (w schemaWalker) nonNull(s map[string]any, depth int) map[string]any {
	s = w.resolve(s)
	if s == nil || depth > maxSchemaDepth {
		return s
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		list := schemaList(s[key])
		if len(list) == 0 {
			continue
		}
		var nn []map[string]any
		for _, v := range list {
			v = w.resolve(v)
			if v != nil && !isNullSchema(v) {
				nn = append(nn, v)
			}
		}
		if len(nn) == 1 {
			return w.nonNull(nn[0], depth+1)
		}
	}
	return s
}

func enumValues(s map[string]any) []any {
	list, _ := s["enum"].([]any)
	var out []any
	for _, v := range list {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

// typeOf returns the JSON type of a property schema, ignoring "null"; "" when
// unknown or ambiguous.
func typeOf(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		var types []string
		for _, x := range t {
			if name, ok := x.(string); ok && name != "null" {
				types = append(types, name)
			}
		}
		if len(types) == 1 {
			return types[0]
		}
		return ""
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	if _, ok := s["items"]; ok {
		return "array"
	}
	return ""
}

// placeholder renders the example value of a schema and the choices worth a
// comment ("a | b").
func (w schemaWalker) placeholder(s map[string]any) (value string, choices []string) {
	s = w.nonNull(s, 0)
	if s == nil {
		return "<value>", nil
	}
	if c, ok := s["const"]; ok {
		return yamlScalar(c), nil
	}
	if e := enumValues(s); len(e) > 0 {
		for _, v := range e {
			choices = append(choices, yamlScalar(v))
		}
		if len(e) == 1 {
			return choices[0], nil
		}
		return choices[0], choices
	}
	switch typeOf(s) {
	case "string":
		return "<string>", nil
	case "number", "integer":
		return "<number>", nil
	case "boolean":
		return "true", []string{"true", "false"}
	case "object":
		return "<object>", nil
	case "array":
		return "<list>", nil
	}
	return "<value>", nil
}

func writeExample(b *strings.Builder, w schemaWalker, fields []fieldSpec) {
	var lines []string
	lines = append(lines, "---")
	for _, f := range fields {
		lines = append(lines, w.exampleLines(f)...)
	}
	lines = append(lines, "---", "", bodyPlaceholder)
	content := strings.Join(lines, "\n")
	fence := fenceFor(content)
	b.WriteString(fence + "\n" + content + "\n" + fence + "\n\n")
}

func (w schemaWalker) exampleLines(f fieldSpec) []string {
	s := w.nonNull(f.schema, 0)
	key := yamlKey(f.name)
	var comment []string
	if f.required {
		comment = append(comment, "required")
	}
	if s != nil && typeOf(s) == "array" {
		if _, isConst := s["const"]; !isConst && len(enumValues(s)) == 0 {
			items, _ := s["items"].(map[string]any)
			item, choices := "<item>", []string(nil)
			if items != nil {
				item, choices = w.placeholder(items)
			}
			itemLine := "  - " + item
			if len(choices) > 0 {
				itemLine += "  # " + strings.Join(choices, " | ")
			}
			return []string{withComment(key+":", comment), itemLine}
		}
	}
	value, choices := w.placeholder(f.schema)
	return []string{withComment(key+": "+value, append(comment, choices...))}
}

func withComment(line string, comment []string) string {
	if len(comment) == 0 {
		return line
	}
	return line + "  # " + strings.Join(comment, " | ")
}

func writeFieldList(b *strings.Builder, w schemaWalker, fields []fieldSpec) {
	for _, f := range fields {
		line := "- `" + f.name + "`"
		if f.required {
			line += " (required)"
		}
		s := w.nonNull(f.schema, 0)
		var notes []string
		if d := text.OneLine(describe(s)); d != "" {
			notes = append(notes, d)
		}
		if s != nil {
			switch typeOf(s) {
			case "object":
				if sub := w.shape(s, 1).names; len(sub) > 0 {
					notes = append(notes, "An object with the fields "+backticked(sub)+".")
				}
			case "array":
				if items, ok := s["items"].(map[string]any); ok {
					if it := w.nonNull(items, 0); it != nil && typeOf(it) == "object" {
						if sub := w.shape(it, 1).names; len(sub) > 0 {
							notes = append(notes, "A list of objects with the fields "+backticked(sub)+".")
						}
					}
				}
			}
		}
		if len(notes) > 0 {
			line += ": " + strings.Join(notes, " ")
		}
		b.WriteString(line + "\n")
	}
}

func backticked(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "`" + n + "`"
	}
	return strings.Join(quoted, ", ")
}

func describe(s map[string]any) string {
	if s == nil {
		return ""
	}
	if d, ok := s["description"].(string); ok && strings.TrimSpace(d) != "" {
		return d
	}
	if t, ok := s["title"].(string); ok {
		return t
	}
	return ""
}

// yamlScalar renders v as a one-line YAML value.
func yamlScalar(v any) string {
	switch x := v.(type) {
	case map[string]any, []any:
		out, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(out)
	case string:
		if plainYAMLString(x) {
			return x
		}
		out, err := yaml.Marshal(x)
		s := strings.TrimSuffix(string(out), "\n")
		if err != nil || strings.Contains(s, "\n") {
			return strconv.Quote(x)
		}
		return s
	case nil:
		return "null"
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(string(out))
}

// plainYAMLString reports whether s can be written unquoted: it is one line
// and reads back as the same string.
func plainYAMLString(s string) bool {
	if s == "" || strings.ContainsAny(s, "\n\r\t") || strings.TrimSpace(s) != s {
		return false
	}
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return false
	}
	back, ok := v.(string)
	return ok && back == s
}

// yamlKey renders a mapping key.
func yamlKey(name string) string {
	return yamlScalar(name)
}

// fenceFor returns a backtick fence longer than any backtick run in content.
func fenceFor(content string) string {
	longest, run := 0, 0
	for _, r := range content {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
