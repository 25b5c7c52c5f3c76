// Package jsonschema is git-uwf's one door to the JSON Schema validator: it
// compiles schema documents without ever loading an external document,
// registers the project's string formats, and turns the validator's errors
// into "at /json/pointer: message" lines.
//
// Documents without "$schema" are read as draft 2020-12. The package knows
// nothing of nodes, roles or workflows; objects and moderator build on it.
//
// The validator (santhosh-tekuri/jsonschema/v6) compiles the meta-schemas of
// every draft in its package initialisation, which every git-uwf process pays
// because the package is linked; see docs/performance.md (start-up). Keeping
// every use behind this package keeps that dependency replaceable in one
// place.
package jsonschema

import (
	"bytes"
	"errors"
	"strings"

	js "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Config says how a schema document is compiled.
type Config struct {
	// AssertFormat makes "format" an assertion rather than an annotation.
	AssertFormat bool
	// Formats are extra string formats by name. A function gets the
	// instance value and returns an error when it does not conform.
	Formats map[string]func(v any) error
	// Refuse returns the error for a reference to any document other than
	// the one being compiled. Nothing is ever loaded; when Refuse is nil
	// the error is a generic one.
	Refuse func(url string) error
}

// Schema is a compiled schema.
type Schema struct{ s *js.Schema }

// Compile compiles doc, a decoded JSON document (see Decode), as if it were
// found at url. A document that breaks its meta-schema fails with an error
// for which Violations reports the broken rules.
func Compile(url string, doc any, cfg Config) (*Schema, error) {
	c := js.NewCompiler()
	c.DefaultDraft(js.Draft2020)
	if cfg.AssertFormat {
		c.AssertFormat()
	}
	c.UseLoader(refuser(cfg.Refuse))
	for name, fn := range cfg.Formats {
		c.RegisterFormat(&js.Format{Name: name, Validate: fn})
	}
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &Schema{s}, nil
}

// Validate checks a decoded instance (see Decode) against the schema. Its
// error lists the violations through Violations.
func (s *Schema) Validate(v any) error { return s.s.Validate(v) }

// Decode decodes JSON for Compile and Validate: numbers stay json.Number,
// so that large integers and decimals are compared exactly.
func Decode(data []byte) (any, error) {
	return js.UnmarshalJSON(bytes.NewReader(data))
}

// refuser is a loader that loads nothing.
type refuser func(url string) error

func (r refuser) Load(url string) (any, error) {
	if r == nil {
		return nil, errors.New("loading " + url + ": external schema documents are not allowed")
	}
	return nil, r(url)
}

// Violations flattens an error of Validate into one line per broken rule,
// "at /json/pointer: message", deepest causes only. Any other error is one
// line at "/".
func Violations(err error) []string {
	var ve *js.ValidationError
	if errors.As(err, &ve) {
		if out := leaves(ve); len(out) > 0 {
			return out
		}
	}
	return []string{"at /: " + OneLine(err.Error())}
}

// SchemaViolations returns the rules of its meta-schema that a document
// given to Compile breaks, as Violations does, and false when err is not
// such an error (a bad reference, a bad regular expression, …).
func SchemaViolations(err error) ([]string, bool) {
	var sve *js.SchemaValidationError
	if !errors.As(err, &sve) || sve.Err == nil {
		return nil, false
	}
	var ve *js.ValidationError
	if !errors.As(sve.Err, &ve) {
		return nil, false
	}
	out := leaves(ve)
	return out, len(out) > 0
}

func leaves(ve *js.ValidationError) []string {
	p := message.NewPrinter(language.English)
	var out []string
	var walk func(e *js.ValidationError)
	walk = func(e *js.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, "at "+Pointer(e.InstanceLocation)+": "+OneLine(e.ErrorKind.LocalizedString(p)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// Pointer renders reference tokens as a JSON pointer (RFC 6901), "/" for
// none.
func Pointer(tokens []string) string {
	if len(tokens) == 0 {
		return "/"
	}
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		if strings.ContainsAny(t, "~/") {
			t = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
		}
		sb.WriteString(t)
	}
	return sb.String()
}

// OneLine collapses every run of white space in s, newlines included, to
// one space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
