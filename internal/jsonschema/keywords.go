package jsonschema

import (
	"maps"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"
)

func (r *run) object(obj map[string]any) {
	n := r.n
	if n.minProperties != nil && len(obj) < *n.minProperties {
		r.fail(msgCount("minProperties", len(obj), *n.minProperties))
	}
	if n.maxProperties != nil && len(obj) > *n.maxProperties {
		r.fail(msgCount("maxProperties", len(obj), *n.maxProperties))
	}
	if len(n.required) > 0 {
		if missing := missingOf(obj, n.required); missing != nil {
			r.fail(msgMissing(missing))
		}
	}
	for _, k := range sortedKeys(n.dependencies) {
		if _, ok := obj[k]; !ok {
			continue
		}
		switch dep := n.dependencies[k].(type) {
		case []string:
			if missing := missingOf(obj, dep); missing != nil {
				r.fail("properties " + joinQuoted(missing) + " required, if " + quote(k) + " exists")
			}
		case *node:
			r.errs = append(r.errs, r.self(dep, "")...)
		}
	}
	if n.properties != nil || n.patternProperties != nil || n.additionalProperties != nil {
		var extra []string
		for _, k := range sortedKeys(obj) {
			pv := obj[k]
			evaluated := false
			if s, ok := n.properties[k]; ok {
				evaluated = true
				r.errs = append(r.errs, r.value(s, pv, k)...)
			}
			for _, pp := range n.patternProperties {
				if pp.re.MatchString(k) {
					evaluated = true
					r.errs = append(r.errs, r.value(pp.sch, pv, k)...)
				}
			}
			if !evaluated && n.additionalProperties != nil {
				evaluated = true
				switch a := n.additionalProperties.(type) {
				case bool:
					if !a {
						extra = append(extra, k)
					}
				case *node:
					r.errs = append(r.errs, r.value(a, pv, k)...)
				}
			}
			if evaluated {
				delete(r.lo.props, k)
			}
		}
		if len(extra) > 0 {
			r.fail("additional properties " + joinQuoted(extra) + " not allowed")
		}
	}
	if n.propertyNames != nil {
		for _, k := range sortedKeys(obj) {
			// Each name is validated as a document of its own, as the old
			// validator did: its violations are at "/".
			sub := run{n: n.propertyNames, v: k, sc: &scope{n: n.propertyNames}, lo: leftoverOf(k, n.propertyNames, false)}
			_, errs := sub.apply()
			r.errs = append(r.errs, errs...)
		}
	}
	for _, k := range sortedKeys(n.dependentSchemas) {
		if _, ok := obj[k]; ok {
			r.errs = append(r.errs, r.self(n.dependentSchemas[k], "")...)
		}
	}
	for _, k := range sortedKeys(n.dependentRequired) {
		if _, ok := obj[k]; ok {
			if missing := missingOf(obj, n.dependentRequired[k]); missing != nil {
				r.fail("properties " + joinQuoted(missing) + " required, if " + quote(k) + " exists")
			}
		}
	}
}

func missingOf(obj map[string]any, names []string) []string {
	var missing []string
	for _, k := range names {
		if _, ok := obj[k]; !ok {
			missing = append(missing, k)
		}
	}
	return missing
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	if len(m) == 1 {
		for k := range m {
			return []string{k}
		}
	}
	return slices.Sorted(maps.Keys(m))
}

func (r *run) array(arr []any) {
	n := r.n
	if n.minItems != nil && len(arr) < *n.minItems {
		r.fail(msgCount("minItems", len(arr), *n.minItems))
	}
	if n.maxItems != nil && len(arr) > *n.maxItems {
		r.fail(msgCount("maxItems", len(arr), *n.maxItems))
	}
	if n.uniqueItems {
		if i, j, ok := duplicate(arr); ok {
			r.fail("items at " + formatCount(i) + " and " + formatCount(j) + " are equal")
		}
	}
	evaluated := min(len(n.prefixItems), len(arr))
	for i := range evaluated {
		r.errs = append(r.errs, r.value(n.prefixItems[i], arr[i], strconv.Itoa(i))...)
	}
	if n.draft < draft2020 && n.prefixItems == nil && n.items != nil {
		evaluated = 0
	}
	if n.items != nil {
		for i := evaluated; i < len(arr); i++ {
			r.errs = append(r.errs, r.value(n.items, arr[i], strconv.Itoa(i))...)
		}
		evaluated = len(arr)
	}
	switch a := n.additionalItems.(type) {
	case bool:
		if !a && evaluated != len(arr) {
			r.fail("last " + formatCount(len(arr)-evaluated) + " additionalItem(s) not allowed")
		}
	case *node:
		for i := evaluated; i < len(arr); i++ {
			r.errs = append(r.errs, r.value(a, arr[i], strconv.Itoa(i))...)
		}
	}
	if n.contains == nil {
		return
	}
	var errs []violation
	var matched []int
	for i, item := range arr {
		if e := r.value(n.contains, item, strconv.Itoa(i)); e != nil {
			errs = append(errs, e...)
		} else {
			matched = append(matched, i)
			if n.draft >= draft2020 {
				delete(r.lo.items, i)
			}
		}
	}
	switch {
	case n.minContains != nil:
		if len(matched) < *n.minContains {
			switch {
			case errs != nil:
				r.errs = append(r.errs, errs...)
			case len(matched) == 0:
				r.fail("min " + formatCount(*n.minContains) + " items required to match contains schema, but none matched")
			default:
				r.fail("min " + formatCount(*n.minContains) + " items required to match contains schema, but matched " +
					formatCount(len(matched)) + " items at " + msgMatched(matched))
			}
		}
	case len(matched) == 0:
		if errs != nil {
			r.errs = append(r.errs, errs...)
		} else {
			r.fail("no items match contains schema")
		}
	}
	if n.maxContains != nil && len(matched) > *n.maxContains {
		r.fail("max " + formatCount(*n.maxContains) + " items required to match contains schema, but matched " +
			formatCount(len(matched)) + " items at " + msgMatched(matched))
	}
}

// duplicate returns the first pair of equal items, by the later one's index.
func duplicate(arr []any) (int, int, bool) {
	for i := 1; i < len(arr); i++ {
		for j := range i {
			if equal(arr[i], arr[j]) {
				return j, i, true
			}
		}
	}
	return 0, 0, false
}

func (r *run) str(s string) {
	n := r.n
	if n.minLength != nil || n.maxLength != nil {
		l := utf8.RuneCountInString(s)
		if n.minLength != nil && l < *n.minLength {
			r.fail(msgCount("minLength", l, *n.minLength))
		}
		if n.maxLength != nil && l > *n.maxLength {
			r.fail(msgCount("maxLength", l, *n.maxLength))
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		r.fail(quote(s) + " does not match pattern " + quote(n.pattern.String()))
	}
}

func (r *run) number(v any) {
	n := r.n
	if n.minimum == nil && n.maximum == nil && n.exclusiveMinimum == nil && n.exclusiveMaximum == nil && n.multipleOf == nil {
		return
	}
	num, ok := toRat(v)
	if !ok {
		return
	}
	bound := func(kw string, want *big.Rat) {
		r.fail(kw + ": got " + formatRat(num) + ", want " + formatRat(want))
	}
	if n.minimum != nil && num.Cmp(n.minimum) < 0 {
		bound("minimum", n.minimum)
	}
	if n.maximum != nil && num.Cmp(n.maximum) > 0 {
		bound("maximum", n.maximum)
	}
	if n.exclusiveMinimum != nil && num.Cmp(n.exclusiveMinimum) <= 0 {
		bound("exclusiveMinimum", n.exclusiveMinimum)
	}
	if n.exclusiveMaximum != nil && num.Cmp(n.exclusiveMaximum) >= 0 {
		bound("exclusiveMaximum", n.exclusiveMaximum)
	}
	if n.multipleOf != nil && n.multipleOf.Sign() != 0 {
		if !new(big.Rat).Quo(num, n.multipleOf).IsInt() {
			bound("multipleOf", n.multipleOf)
		}
	}
}
