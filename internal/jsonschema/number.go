package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// isNumber reports whether v is a number as Decode or a YAML decoder
// produces them.
func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// toRat returns a number exactly; ok is false for anything else (and for
// infinities and NaN).
func toRat(v any) (*big.Rat, bool) {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = string(n)
	case float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		s = fmt.Sprint(n)
	default:
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// isInteger reports whether a number has no fractional part (1.0 does not).
func isInteger(v any) bool {
	r, ok := toRat(v)
	return ok && r.IsInt()
}

// intKeyword returns the value of a keyword that takes a non-negative
// integer, as the old validator read them: any integral number, truncated
// to int.
func intKeyword(v any) (int, bool) {
	r, ok := toRat(v)
	if !ok || !r.IsInt() {
		return 0, false
	}
	if !r.Num().IsInt64() || r.Num().Int64() > math.MaxInt {
		// Beyond any length or count a value can have. (v6 wrapped
		// such a bound around to a negative or small number.)
		if r.Sign() < 0 {
			return math.MinInt, true
		}
		return math.MaxInt, true
	}
	return int(r.Num().Int64()), true
}

// formatCount renders an int the way the messages always have: English
// digit grouping ("1,234").
func formatCount(n int) string {
	return groupDigits(strconv.Itoa(n))
}

// formatRat renders a number of a bound message: the shortest float64
// form, its integer digits grouped, an exponent as "×10" and superscript
// digits ("1.5×10⁻⁰⁷").
func formatRat(r *big.Rat) string {
	f, _ := r.Float64()
	switch {
	case math.IsInf(f, 1):
		return "∞"
	case math.IsInf(f, -1):
		return "-∞"
	case f == 0:
		return "0" // also for a negative number too small for a float64
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	mant, exp, hasExp := strings.Cut(s, "e")
	if !hasExp {
		return groupDigits(s)
	}
	var sb strings.Builder
	sb.WriteString(mant)
	sb.WriteString("×10")
	for _, c := range exp {
		switch {
		case c == '-':
			sb.WriteRune('⁻')
		case c >= '0' && c <= '9':
			sb.WriteRune([]rune("⁰¹²³⁴⁵⁶⁷⁸⁹")[c-'0'])
		}
	}
	return sb.String()
}

// groupDigits puts a comma between every three digits of the integer part
// of a decimal number.
func groupDigits(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if len(intPart) <= 3 {
		return sign + s
	}
	var sb strings.Builder
	sb.WriteString(sign)
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(c)
	}
	if hasFrac {
		sb.WriteByte('.')
		sb.WriteString(frac)
	}
	return sb.String()
}

// equal reports whether two decoded JSON values are equal; numbers are
// equal when their values are (1 and 1.0 are).
func equal(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !equal(va, vb) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && a == b
	}
	if !isNumber(a) || !isNumber(b) {
		return false
	}
	if na, ok := a.(json.Number); ok {
		if nb, ok := b.(json.Number); ok && na == nb {
			return true
		}
	}
	ra, ok1 := toRat(a)
	rb, ok2 := toRat(b)
	return ok1 && ok2 && ra.Cmp(rb) == 0
}
