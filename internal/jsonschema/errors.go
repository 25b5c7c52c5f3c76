package jsonschema

import (
	"fmt"
	"strconv"
	"strings"
)

// A violation is one broken rule: where in the instance, and what.
type violation struct {
	at  []string // reference tokens of the instance location
	msg string
}

// ValidationError is the error of (*Schema).Validate: the broken rules,
// deepest causes only, in the order they were found.
type ValidationError struct {
	url        string
	violations []violation
}

func (e *ValidationError) Error() string {
	var sb strings.Builder
	sb.WriteString("jsonschema validation failed with " + quote(e.url+"#"))
	for _, v := range e.violations {
		sb.WriteString("\n- at " + quote(Pointer(v.at)) + ": " + v.msg)
	}
	return sb.String()
}

func (e *ValidationError) lines() []string {
	out := make([]string, len(e.violations))
	for i, v := range e.violations {
		out[i] = "at " + Pointer(v.at) + ": " + OneLine(v.msg)
	}
	return out
}

// SchemaError is the error of Compile for a document that breaks its
// meta-schema.
type SchemaError struct {
	URL        string
	Violations []string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("%q is not valid against metaschema: %s", e.URL+"#", strings.Join(e.Violations, "; "))
}

// quote single-quotes s as the messages always have: Go escapes, double
// quotes left alone, single quotes escaped.
func quote(s string) string {
	s = strconv.Quote(s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

func joinQuoted(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = quote(s)
	}
	return strings.Join(q, ", ")
}

// display renders a primitive value of a message.
func display(v any) string {
	switch v := v.(type) {
	case string:
		return quote(v)
	case []any, map[string]any:
		return "value"
	}
	return fmt.Sprintf("%v", v)
}

func msgEnum(want []any) string {
	for _, w := range want {
		switch w.(type) {
		case []any, map[string]any:
			return "'enum' failed"
		}
	}
	if len(want) == 1 {
		return "value must be " + display(want[0])
	}
	d := make([]string, len(want))
	for i, w := range want {
		d[i] = display(w)
	}
	return "value must be one of " + strings.Join(d, ", ")
}

func msgConst(want any) string {
	switch want.(type) {
	case []any, map[string]any:
		return "'const' failed"
	}
	return "value must be " + display(want)
}

func msgCount(kw string, got, want int) string {
	return kw + ": got " + formatCount(got) + ", want " + formatCount(want)
}

func msgMissing(missing []string) string {
	if len(missing) == 1 {
		return "missing property " + quote(missing[0])
	}
	return "missing properties " + joinQuoted(missing)
}

func msgMatched(matched []int) string {
	s := fmt.Sprint(matched)
	return s[1 : len(s)-1]
}
