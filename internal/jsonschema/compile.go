package jsonschema

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"

	"github.com/git-uwf/git-uwf/internal/jsonschema/format"
)

// Bits of the set of JSON types a "type" keyword allows.
const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

var typeNames = [...]string{"null", "boolean", "number", "integer", "string", "array", "object"}

// typeBit returns the bit of a type name, 0 for an unknown one.
func typeBit(name string) uint8 {
	for i, n := range typeNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// A node is one compiled schema. Absent keywords are nil (or zero).
type node struct {
	draft int
	loc   string    // absolute location: document URL, '#', JSON pointer
	res   *resource // the resource the schema belongs to
	ptr   string

	boolean *bool // a boolean schema (or {}, which is true)

	ref, recursiveRef, dynamicRef *node
	dynamicRefAnchor              string
	recursiveAnchor               bool
	dynamicAnchor                 string

	types     uint8
	hasConst  bool
	constVal  any
	enum      []any
	format    func(any) error
	formatKey string

	multipleOf, maximum, minimum, exclusiveMaximum, exclusiveMinimum *big.Rat

	minLength, maxLength, minItems, maxItems, minProperties, maxProperties *int
	minContains, maxContains                                               *int
	pattern                                                                *regexp.Regexp
	uniqueItems                                                            bool
	required                                                               []string

	dependencies      map[string]any // []string or *node
	dependentRequired map[string][]string
	dependentSchemas  map[string]*node

	properties           map[string]*node
	patternProperties    []patternProperty
	additionalProperties any // bool or *node
	propertyNames        *node

	items           *node   // the one schema for every item (2020-12: after prefixItems)
	prefixItems     []*node // 2020-12 prefixItems, or an older draft's items array
	additionalItems any     // bool or *node (older drafts)
	contains        *node

	allOf, anyOf, oneOf []*node
	not                 *node
	ifs, then, els      *node

	unevaluatedProperties, unevaluatedItems *node

	// What every instance gets evaluated by this schema alone.
	allPropsEvaluated, allItemsEvaluated bool
	numItemsEvaluated                    int
}

type patternProperty struct {
	re  *regexp.Regexp
	sch *node
}

type compiler struct {
	url    string
	doc    any
	cfg    Config
	ix     *index
	nodes  map[string]*node
	queue  []pending
	refuse func(string) error
}

// node returns the schema at a JSON pointer of the document. A new one is
// compiled later, by drain, in the order they were asked for (the order
// in which the old validator found faults).
func (c *compiler) node(ptr string) (*node, error) {
	return c.enqueue(ptr, nil, false)
}

// nodeOf is node for a value already looked up.
func (c *compiler) nodeOf(ptr string, v any) (*node, error) {
	return c.enqueue(ptr, v, true)
}

func (c *compiler) enqueue(ptr string, v any, known bool) (*node, error) {
	if n, ok := c.nodes[ptr]; ok {
		return n, nil
	}
	res := c.ix.resourceAt(ptr)
	n := &node{draft: res.draft, loc: c.url + "#" + encodeFragment(ptr), res: res, ptr: ptr}
	c.nodes[ptr] = n
	c.queue = append(c.queue, pending{n, v, known})
	return n, nil
}

// A pending schema is one asked for and not yet compiled.
type pending struct {
	n     *node
	v     any
	known bool // v has been looked up
}

// drain compiles the pending schemas.
func (c *compiler) drain() error {
	for len(c.queue) > 0 {
		p := c.queue[0]
		c.queue = c.queue[1:]
		v := p.v
		if !p.known {
			var err error
			if v, err = c.lookup(p.n.ptr); err != nil {
				return err
			}
		}
		if err := c.build(p.n, v); err != nil {
			return err
		}
	}
	return nil
}

func (c *compiler) build(n *node, v any) error {
	switch v := v.(type) {
	case bool:
		n.boolean = &v
		return nil
	case map[string]any:
		if len(v) == 0 {
			t := true
			n.boolean = &t
			return nil
		}
		return c.compileObject(n, v)
	}
	return fmt.Errorf("%q is not a schema", n.loc)
}

// sub compiles v, the subschema of n at the keyword path.
func (c *compiler) sub(n *node, v any, path ...string) (*node, error) {
	p := n.ptr
	for _, t := range path {
		p += "/" + escapeToken(t)
	}
	return c.nodeOf(p, v)
}

// prop compiles the subschema under keyword kw, nil when absent.
func (c *compiler) prop(n *node, obj map[string]any, kw string) (*node, error) {
	v, ok := obj[kw]
	if !ok {
		return nil, nil
	}
	return c.sub(n, v, kw)
}

func (c *compiler) array(n *node, obj map[string]any, kw string) ([]*node, error) {
	arr, ok := obj[kw].([]any)
	if !ok {
		return nil, nil
	}
	out := make([]*node, len(arr))
	for i := range arr {
		s, err := c.sub(n, arr[i], kw, strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func (c *compiler) object(n *node, obj map[string]any, kw string) (map[string]*node, error) {
	m, ok := obj[kw].(map[string]any)
	if !ok {
		return nil, nil
	}
	out := make(map[string]*node, len(m))
	for _, k := range sortedKeys(m) { // the first fault found is the same each time
		s, err := c.sub(n, m[k], kw, k)
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, nil
}

// additional compiles a keyword that is a boolean or a schema.
func (c *compiler) additional(n *node, obj map[string]any, kw string) (any, error) {
	v, ok := obj[kw]
	if !ok {
		return nil, nil
	}
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return c.sub(n, v, kw)
}

func (c *compiler) refTo(n *node, obj map[string]any, kw string) (*node, string, error) {
	ref, ok := obj[kw].(string)
	if !ok {
		return nil, "", nil
	}
	ptr, anchor, err := c.resolve(ref, n.res)
	if err != nil {
		return nil, "", err
	}
	t, err := c.node(ptr)
	return t, anchor, err
}

func numKeyword(obj map[string]any, kw string) *big.Rat {
	if r, ok := toRat(obj[kw]); ok {
		return r
	}
	return nil
}

func countKeyword(obj map[string]any, kw string) *int {
	if v, ok := obj[kw]; ok {
		if n, ok := intKeyword(v); ok {
			return &n
		}
	}
	return nil
}

func stringList(arr any) []string {
	list, _ := arr.([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (c *compiler) compileObject(n *node, obj map[string]any) error {
	var err error
	d := n.draft
	if n.ref, _, err = c.refTo(n, obj, "$ref"); err != nil {
		return err
	}
	if d < draft2019 && n.ref != nil {
		return nil // every other keyword beside $ref is ignored
	}
	if n.allOf, err = c.array(n, obj, "allOf"); err != nil {
		return err
	}
	if n.anyOf, err = c.array(n, obj, "anyOf"); err != nil {
		return err
	}
	if n.oneOf, err = c.array(n, obj, "oneOf"); err != nil {
		return err
	}
	if n.not, err = c.prop(n, obj, "not"); err != nil {
		return err
	}
	if d < draft2020 {
		if _, ok := obj["items"].([]any); ok {
			if n.prefixItems, err = c.array(n, obj, "items"); err != nil {
				return err
			}
			if n.additionalItems, err = c.additional(n, obj, "additionalItems"); err != nil {
				return err
			}
		} else if n.items, err = c.prop(n, obj, "items"); err != nil {
			return err
		}
	}
	if n.properties, err = c.object(n, obj, "properties"); err != nil {
		return err
	}
	if m, ok := obj["patternProperties"].(map[string]any); ok {
		for _, pat := range slices.Sorted(maps.Keys(m)) {
			re, err := regexp.Compile(pat)
			if err != nil {
				return fmt.Errorf("invalid regex %q at %q: %w", pat, n.loc+"/patternProperties", err)
			}
			s, err := c.sub(n, m[pat], "patternProperties", pat)
			if err != nil {
				return err
			}
			n.patternProperties = append(n.patternProperties, patternProperty{re, s})
		}
	}
	if n.additionalProperties, err = c.additional(n, obj, "additionalProperties"); err != nil {
		return err
	}
	if m, ok := obj["dependencies"].(map[string]any); ok {
		n.dependencies = map[string]any{}
		for _, k := range sortedKeys(m) {
			if v := m[k]; isArray(v) {
				n.dependencies[k] = stringList(v)
			} else if n.dependencies[k], err = c.sub(n, m[k], "dependencies", k); err != nil {
				return err
			}
		}
	}
	if t, ok := obj["type"]; ok {
		if s, ok := t.(string); ok {
			n.types = typeBit(s)
		} else {
			for _, s := range stringList(t) {
				n.types |= typeBit(s)
			}
		}
	}
	if arr, ok := obj["enum"].([]any); ok {
		n.enum = arr
	}
	n.multipleOf = numKeyword(obj, "multipleOf")
	n.maximum = numKeyword(obj, "maximum")
	if b, _ := obj["exclusiveMaximum"].(bool); b {
		n.exclusiveMaximum, n.maximum = n.maximum, nil
	} else {
		n.exclusiveMaximum = numKeyword(obj, "exclusiveMaximum")
	}
	n.minimum = numKeyword(obj, "minimum")
	if b, _ := obj["exclusiveMinimum"].(bool); b {
		n.exclusiveMinimum, n.minimum = n.minimum, nil
	} else {
		n.exclusiveMinimum = numKeyword(obj, "exclusiveMinimum")
	}
	n.minLength = countKeyword(obj, "minLength")
	n.maxLength = countKeyword(obj, "maxLength")
	if pat, ok := obj["pattern"].(string); ok {
		if n.pattern, err = regexp.Compile(pat); err != nil {
			return fmt.Errorf("invalid regex %q at %q: %w", pat, n.loc+"/pattern", err)
		}
	}
	n.minItems = countKeyword(obj, "minItems")
	n.maxItems = countKeyword(obj, "maxItems")
	n.uniqueItems, _ = obj["uniqueItems"].(bool)
	n.maxProperties = countKeyword(obj, "maxProperties")
	n.minProperties = countKeyword(obj, "minProperties")
	if _, ok := obj["required"].([]any); ok {
		n.required = stringList(obj["required"])
	}
	if name, ok := obj["format"].(string); ok && c.assertFormat(d) {
		n.formatKey = name
		n.format = c.formatCheck(name)
	}

	if d >= draft6 {
		if n.contains, err = c.prop(n, obj, "contains"); err != nil {
			return err
		}
		if n.propertyNames, err = c.prop(n, obj, "propertyNames"); err != nil {
			return err
		}
		n.constVal, n.hasConst = obj["const"]
	}
	if d >= draft7 {
		if n.ifs, err = c.prop(n, obj, "if"); err != nil {
			return err
		}
		if n.ifs != nil {
			b, isBool := obj["if"].(bool)
			if !isBool || b {
				if n.then, err = c.prop(n, obj, "then"); err != nil {
					return err
				}
			}
			if !isBool || !b {
				if n.els, err = c.prop(n, obj, "else"); err != nil {
					return err
				}
			}
		}
	}
	if d >= draft2019 {
		if err := c.compile2019(n, obj); err != nil {
			return err
		}
	}
	if d >= draft2020 {
		if n.dynamicRef, n.dynamicRefAnchor, err = c.refTo(n, obj, "$dynamicRef"); err != nil {
			return err
		}
		n.dynamicAnchor, _ = obj["$dynamicAnchor"].(string)
		if n.prefixItems, err = c.array(n, obj, "prefixItems"); err != nil {
			return err
		}
		if n.items, err = c.prop(n, obj, "items"); err != nil {
			return err
		}
	}

	n.allPropsEvaluated = n.additionalProperties != nil
	if d < draft2020 {
		n.allItemsEvaluated = n.additionalItems != nil || n.items != nil
		n.numItemsEvaluated = len(n.prefixItems)
	} else {
		n.allItemsEvaluated = n.items != nil
		n.numItemsEvaluated = len(n.prefixItems)
	}
	return nil
}

func (c *compiler) compile2019(n *node, obj map[string]any) error {
	var err error
	if n.recursiveRef, _, err = c.refTo(n, obj, "$recursiveRef"); err != nil {
		return err
	}
	n.recursiveAnchor, _ = obj["$recursiveAnchor"].(bool)
	if n.contains != nil {
		n.minContains = countKeyword(obj, "minContains")
		n.maxContains = countKeyword(obj, "maxContains")
	}
	if m, ok := obj["dependentRequired"].(map[string]any); ok {
		n.dependentRequired = map[string][]string{}
		for k, v := range m {
			if _, ok := v.([]any); ok {
				n.dependentRequired[k] = stringList(v)
			}
		}
	}
	if n.dependentSchemas, err = c.object(n, obj, "dependentSchemas"); err != nil {
		return err
	}
	if n.unevaluatedItems, err = c.prop(n, obj, "unevaluatedItems"); err != nil {
		return err
	}
	n.unevaluatedProperties, err = c.prop(n, obj, "unevaluatedProperties")
	return err
}

// assertFormat reports whether "format" asserts in a draft: always when
// configured, and in the drafts before 2019-09.
func (c *compiler) assertFormat(d int) bool {
	return c.cfg.AssertFormat || d < draft2019
}

// formatCheck returns the check of a format name, nil for an unknown one
// (which passes everything).
func (c *compiler) formatCheck(name string) func(any) error {
	if name == "regex" {
		return checkRegex
	}
	if f, ok := c.cfg.Formats[name]; ok {
		return f
	}
	if f, ok := format.Lookup(name); ok {
		return f
	}
	return nil
}

func checkRegex(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	_, err := regexp.Compile(s)
	return err
}

// refuseAll is the refusal when Config.Refuse is nil.
func refuseAll(url string) error {
	return errors.New("loading " + url + ": external schema documents are not allowed")
}

func isArray(v any) bool {
	_, ok := v.([]any)
	return ok
}
