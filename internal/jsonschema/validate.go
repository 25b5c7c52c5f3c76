package jsonschema

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// A scope is one step of the dynamic path from the root schema to the
// schema being applied: what $dynamicRef and $recursiveRef resolve
// against, and what finds reference cycles.
type scope struct {
	n      *node
	refKw  string // the reference keyword that led here, if any
	depth  int    // instance depth: equal depths in a chain mean the same value
	parent *scope
}

// cycle returns the enclosing scope that applies the same schema to the
// same value, nil if none.
func (sc *scope) cycle() *scope {
	for p := sc.parent; p != nil && p.depth == sc.depth; p = p.parent {
		if p.n == sc.n {
			return p
		}
	}
	return nil
}

// kwLoc is the keyword path from the root schema to the scope.
func (sc *scope) kwLoc() string {
	var loc string
	for ; sc.parent != nil; sc = sc.parent {
		if sc.refKw != "" {
			loc = "/" + escapeToken(sc.refKw) + loc
		} else if cur, par := sc.n.loc, sc.parent.n.loc; len(cur) >= len(par) {
			loc = cur[len(par):] + loc
		}
	}
	return loc
}

// leftover is what of an object or array no keyword has evaluated yet,
// tracked only where an unevaluated* keyword may ask.
type leftover struct {
	props map[string]struct{}
	items map[int]struct{}
}

func leftoverOf(v any, n *node, callerNeeds bool) *leftover {
	lo := &leftover{}
	switch v := v.(type) {
	case map[string]any:
		if !n.allPropsEvaluated && (callerNeeds || n.unevaluatedProperties != nil) {
			lo.props = make(map[string]struct{}, len(v))
			for k := range v {
				lo.props[k] = struct{}{}
			}
		}
	case []any:
		if !n.allItemsEvaluated && (callerNeeds || n.unevaluatedItems != nil) && n.numItemsEvaluated < len(v) {
			lo.items = make(map[int]struct{}, len(v)-n.numItemsEvaluated)
			for i := n.numItemsEvaluated; i < len(v); i++ {
				lo.items[i] = struct{}{}
			}
		}
	}
	return lo
}

// keep keeps only what other left unevaluated too.
func (lo *leftover) keep(other *leftover) {
	for k := range lo.props {
		if _, ok := other.props[k]; !ok {
			delete(lo.props, k)
		}
	}
	for i := range lo.items {
		if _, ok := other.items[i]; !ok {
			delete(lo.items, i)
		}
	}
}

func (lo *leftover) empty() bool { return len(lo.props) == 0 && len(lo.items) == 0 }

// A location is where a value sits in the instance: the reference token
// of the value within its parent's location. Each level of a nested
// instance adds one, so a deep instance costs memory in proportion to
// its depth; the tokens become a path only when a violation is reported.
type location struct {
	parent *location
	tok    string
}

// path returns the reference tokens from the root to l.
func (l *location) path() []string {
	n := 0
	for p := l; p != nil; p = p.parent {
		n++
	}
	out := make([]string, n)
	for p := l; p != nil; p = p.parent {
		n--
		out[n] = p.tok
	}
	return out
}

// A run applies one schema to one value.
type run struct {
	n    *node
	v    any
	at   *location // nil at the root
	sc   *scope
	lo   *leftover
	errs []violation
}

func (r *run) fail(msg string) {
	r.errs = append(r.errs, violation{at: r.at.path(), msg: msg})
}

// apply runs the schema; it returns what is left unevaluated, or the
// violations.
func (r *run) apply() (*leftover, []violation) {
	n := r.n
	if n.boolean != nil {
		if *n.boolean {
			return r.lo, nil
		}
		r.fail("false schema")
		return nil, r.errs
	}
	if p := r.sc.cycle(); p != nil {
		r.fail(fmt.Sprintf("both %s and %s resolve to %q causing reference cycle", r.sc.kwLoc(), p.kwLoc(), n.loc))
		return nil, r.errs
	}
	v := r.v
	if n.types != 0 {
		t := typeOf(v)
		if n.types&t == 0 && !(n.types&typeInteger != 0 && t == typeNumber && isInteger(v)) {
			r.fail("got " + typeName(t) + ", want " + typeList(n.types))
			return nil, r.errs
		}
	}
	if n.hasConst && !equal(v, n.constVal) {
		r.fail(msgConst(n.constVal))
		return nil, r.errs
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(w any) bool { return equal(v, w) }) {
		r.fail(msgEnum(n.enum))
		return nil, r.errs
	}
	if n.format != nil {
		if err := n.format(v); err != nil {
			r.fail(display(v) + " is not valid " + n.formatKey + ": " + err.Error())
			return nil, r.errs
		}
	}
	if n.ref != nil {
		errs := r.self(n.ref, "$ref")
		if n.draft < draft2019 {
			if errs != nil {
				return nil, errs
			}
			return r.lo, nil
		}
		r.errs = append(r.errs, errs...)
	}
	switch v := v.(type) {
	case map[string]any:
		r.object(v)
	case []any:
		r.array(v)
	case string:
		r.str(v)
	default:
		if isNumber(v) {
			r.number(v)
		}
	}
	if n.draft >= draft2019 {
		r.dynamicRefs()
	}
	r.conditionals()
	if n.draft >= draft2019 {
		r.unevaluated()
	}
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	return r.lo, nil
}

// self applies another schema to the same value; what it evaluates counts
// for this one when it passes.
func (r *run) self(n *node, refKw string) []violation {
	sub := run{n: n, v: r.v, at: r.at, sc: &scope{n, refKw, r.sc.depth, r.sc}, lo: leftoverOf(r.v, n, !r.lo.empty())}
	lo, errs := sub.apply()
	if errs == nil {
		r.lo.keep(lo)
	}
	return errs
}

// value applies a schema to a member of the value.
func (r *run) value(n *node, v any, tok string) []violation {
	sub := run{n: n, v: v, at: &location{r.at, tok}, sc: &scope{n, "", r.sc.depth + 1, r.sc}, lo: leftoverOf(v, n, false)}
	_, errs := sub.apply()
	return errs
}

func (r *run) dynamicRefs() {
	n := r.n
	if t := n.recursiveRef; t != nil {
		if t.recursiveAnchor {
			for sc := r.sc; sc != nil; sc = sc.parent {
				if sc.n.res.recursive {
					t = sc.n
				}
			}
		}
		r.errs = append(r.errs, r.self(t, "$recursiveRef")...)
	}
	if t := n.dynamicRef; t != nil {
		if a := n.dynamicRefAnchor; a != "" && t.dynamicAnchor == a {
			for sc := r.sc; sc != nil; sc = sc.parent {
				if d, ok := sc.n.res.dynamic[a]; ok {
					t = d
				}
			}
		}
		r.errs = append(r.errs, r.self(t, "$dynamicRef")...)
	}
}

func (r *run) conditionals() {
	n := r.n
	if n.not != nil && r.self(n.not, "") == nil {
		r.fail("'not' failed")
	}
	for _, s := range n.allOf {
		r.errs = append(r.errs, r.self(s, "")...)
	}
	if len(n.anyOf) > 0 {
		var errs []violation
		matched := false
		for _, s := range n.anyOf {
			if e := r.self(s, ""); e != nil {
				errs = append(errs, e...)
			} else {
				matched = true
				if r.lo.empty() {
					break
				}
			}
		}
		if !matched {
			r.errs = append(r.errs, errs...)
		}
	}
	if len(n.oneOf) > 0 {
		var errs []violation
		matched := -1
		for i, s := range n.oneOf {
			if e := r.self(s, ""); e != nil {
				if matched == -1 {
					errs = append(errs, e...)
				}
			} else if matched == -1 {
				matched = i
			} else {
				r.fail("'oneOf' failed, subschemas " + formatCount(matched) + ", " + formatCount(i) + " matched")
				break
			}
		}
		if matched == -1 {
			r.errs = append(r.errs, errs...)
		}
	}
	if n.ifs != nil {
		if r.self(n.ifs, "") == nil {
			if n.then != nil {
				r.errs = append(r.errs, r.self(n.then, "")...)
			}
		} else if n.els != nil {
			r.errs = append(r.errs, r.self(n.els, "")...)
		}
	}
}

func (r *run) unevaluated() {
	n := r.n
	if obj, ok := r.v.(map[string]any); ok && n.unevaluatedProperties != nil {
		for _, k := range slices.Sorted(maps.Keys(r.lo.props)) {
			if pv, ok := obj[k]; ok {
				r.errs = append(r.errs, r.value(n.unevaluatedProperties, pv, k)...)
			}
		}
		r.lo.props = nil
	}
	if arr, ok := r.v.([]any); ok && n.unevaluatedItems != nil {
		for _, i := range slices.Sorted(maps.Keys(r.lo.items)) {
			r.errs = append(r.errs, r.value(n.unevaluatedItems, arr[i], strconv.Itoa(i))...)
		}
		r.lo.items = nil
	}
}

// typeOf returns the type bit of a decoded value: numbers are typeNumber.
func typeOf(v any) uint8 {
	switch v.(type) {
	case nil:
		return typeNull
	case bool:
		return typeBoolean
	case string:
		return typeString
	case []any:
		return typeArray
	case map[string]any:
		return typeObject
	}
	if isNumber(v) {
		return typeNumber
	}
	return 0
}

func typeName(t uint8) string {
	for i, name := range typeNames {
		if t == 1<<i {
			return name
		}
	}
	return ""
}

func typeList(set uint8) string {
	var s string
	for i, name := range typeNames {
		if set&(1<<i) != 0 {
			if s != "" {
				s += " or "
			}
			s += name
		}
	}
	return s
}
