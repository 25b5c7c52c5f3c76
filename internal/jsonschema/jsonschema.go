// Package jsonschema is git-uwf's JSON Schema validator: it compiles schema
// documents (drafts 4, 6, 7, 2019-09 and 2020-12) without ever loading an
// external document, checks string formats (the standard ones from
// package format, and the caller's), and reports violations as
// "at /json/pointer: message" lines.
//
// Documents without "$schema" are read as draft 2020-12. The package knows
// nothing of nodes, roles or workflows; objects and moderator build on it.
//
// Nothing is built at package initialisation: meta-schema rules are code
// (metacheck.go), and regular expressions are compiled with the schema
// that has them. An instance's violations read as santhosh-tekuri/jsonschema/v6
// wrote them when it was the validator (the reasons of the standard formats
// excepted); a schema that breaks its meta-schema gets one line per broken
// rule in this package's words. The tests keep v6 as the oracle the
// validator is compared with (differential_test.go, metaoracle_test.go);
// the binary does not link it.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Config says how a schema document is compiled.
type Config struct {
	// AssertFormat makes "format" an assertion rather than an annotation.
	// (Drafts before 2019-09 always assert it.)
	AssertFormat bool
	// Formats are extra string formats by name. A function gets the
	// instance value and returns an error when it does not conform.
	Formats map[string]func(v any) error
	// Refuse returns the error for a reference to any document other than
	// the one being compiled. Nothing is ever loaded; when Refuse is nil
	// the error is a generic one.
	Refuse func(url string) error
}

// Schema is a compiled schema. It is safe for concurrent use.
type Schema struct {
	url  string
	root *node
}

// Compile compiles doc, a decoded JSON document (see Decode), as if it were
// found at url. A document that breaks its meta-schema fails with an error
// for which SchemaViolations reports the broken rules.
func Compile(url string, doc any, cfg Config) (*Schema, error) {
	draft := draft2020
	if obj, ok := doc.(map[string]any); ok {
		if s, ok := obj["$schema"].(string); ok {
			var err error
			if draft, err = draftFromSchema(s, url+"#", url, refusal(cfg)); err != nil {
				return nil, err
			}
		}
	}
	base, err := join(url, "")
	if err != nil {
		return nil, err
	}
	c := &compiler{url: url, doc: doc, cfg: cfg, ix: newIndex(url, draft, refusal(cfg)), nodes: map[string]*node{}, refuse: refusal(cfg)}
	rootRes, _ := c.ix.add(base, "", draft)
	if err := c.ix.collect(doc, "", rootRes); err != nil {
		return nil, err
	}
	// Like the old validator, ids and anchors are read (a bad or
	// duplicate one fails here) before the meta-schema check.
	if v := metaViolations(doc, draftName(draft)); len(v) > 0 {
		return nil, &SchemaError{URL: url, Violations: v}
	}
	root, err := c.node("")
	if err != nil {
		return nil, err
	}
	if err := c.drain(); err != nil {
		return nil, err
	}
	if err := c.compileDynamicAnchors(); err != nil {
		return nil, err
	}
	return &Schema{url: url, root: root}, nil
}

// compileDynamicAnchors compiles the $dynamicAnchor schemas of every
// resource a compiled schema belongs to, for $dynamicRef to find at
// validation.
func (c *compiler) compileDynamicAnchors() error {
	for again := true; again; {
		again = false
		for _, n := range c.nodes {
			if n.res.dynamic != nil || len(n.res.dynamicAnchors) == 0 {
				continue
			}
			n.res.dynamic = map[string]*node{}
			for name, ptr := range n.res.dynamicAnchors {
				d, err := c.node(ptr)
				if err != nil {
					return err
				}
				n.res.dynamic[name] = d
			}
			if err := c.drain(); err != nil {
				return err
			}
			again = true
			break // c.nodes may have grown: start over
		}
	}
	return nil
}

func refusal(cfg Config) func(string) error {
	if cfg.Refuse != nil {
		return cfg.Refuse
	}
	return refuseAll
}

// Validate checks a decoded instance (see Decode) against the schema. Its
// error lists the violations through Violations.
func (s *Schema) Validate(v any) error {
	r := run{n: s.root, v: v, sc: &scope{n: s.root}, lo: leftoverOf(v, s.root, false)}
	if _, errs := r.apply(); errs != nil {
		return &ValidationError{url: s.url, violations: errs}
	}
	return nil
}

// Decode decodes JSON for Compile and Validate: numbers stay json.Number,
// so that large integers and decimals are compared exactly.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

// Violations flattens an error of Validate into one line per broken rule,
// "at /json/pointer: message", deepest causes only. Any other error is one
// line at "/".
func Violations(err error) []string {
	var ve *ValidationError
	if errors.As(err, &ve) && len(ve.violations) > 0 {
		return ve.lines()
	}
	return []string{"at /: " + OneLine(err.Error())}
}

// SchemaViolations returns the rules of its meta-schema that a document
// given to Compile breaks, as Violations does, and false when err is not
// such an error (a bad reference, a bad regular expression, …).
func SchemaViolations(err error) ([]string, bool) {
	var se *SchemaError
	if !errors.As(err, &se) || len(se.Violations) == 0 {
		return nil, false
	}
	return append([]string(nil), se.Violations...), true
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
		sb.WriteString(escapeToken(t))
	}
	return sb.String()
}

// OneLine collapses every run of white space in s, newlines included, to
// one space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
