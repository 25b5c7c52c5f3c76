package objects

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects accepted by Canonicalize.
const maxDepth = 10000

// Canonicalize returns the RFC 8785 (JCS) canonical form of the JSON text
// data: object members sorted by the UTF-16 code units of their names, no
// insignificant whitespace, numbers parsed as IEEE 754 doubles and written in
// ECMAScript's shortest form, strings minimally escaped. Invalid UTF-8, lone
// surrogates, duplicate member names, numbers out of range and trailing data
// are errors.
func Canonicalize(data []byte) ([]byte, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("canonicalize json: invalid utf-8")
	}
	p := parser{data: data}
	p.skipSpace()
	out := make([]byte, 0, len(data))
	out, err := p.value(out, 0)
	if err != nil {
		return nil, fmt.Errorf("canonicalize json: %w", err)
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, fmt.Errorf("canonicalize json: unexpected data after top-level value at offset %d", p.pos)
	}
	return out, nil
}

// MarshalCanonical encodes v with encoding/json (without HTML escaping) and
// returns its canonical form (see Canonicalize).
func MarshalCanonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("marshal canonical json: %w", err)
	}
	return Canonicalize(buf.Bytes())
}

type parser struct {
	data []byte
	pos  int
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// value parses one JSON value at p.pos (whitespace already skipped) and
// appends its canonical form to out.
func (p *parser) value(out []byte, depth int) ([]byte, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(out, depth+1)
	case c == '[':
		return p.array(out, depth+1)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return appendString(out, s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(out)
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.data[p.pos:], []byte(lit)) {
				p.pos += len(lit)
				return append(out, lit...), nil
			}
		}
		return nil, p.errorf("invalid character %q", c)
	}
}

type member struct {
	key   string
	units []uint16
	value []byte
}

func (p *parser) object(out []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, p.errorf("nesting deeper than %d", maxDepth)
	}
	p.pos++ // '{'
	p.skipSpace()
	var members []member
	seen := map[string]struct{}{}
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return append(out, "{}"...), nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errorf("expected object member name")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := seen[key]; dup {
			return nil, p.errorf("duplicate object member name %q", key)
		}
		seen[key] = struct{}{}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("expected ':' after object member name")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(nil, depth)
		if err != nil {
			return nil, err
		}
		members = append(members, member{key: key, units: utf16.Encode([]rune(key)), value: v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of input in object")
		}
		if p.data[p.pos] == ',' {
			p.pos++
			p.skipSpace()
			continue
		}
		if p.data[p.pos] == '}' {
			p.pos++
			break
		}
		return nil, p.errorf("expected ',' or '}' in object")
	}
	slices.SortFunc(members, func(a, b member) int { return slices.Compare(a.units, b.units) })
	out = append(out, '{')
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendString(out, m.key)
		out = append(out, ':')
		out = append(out, m.value...)
	}
	return append(out, '}'), nil
}

func (p *parser) array(out []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, p.errorf("nesting deeper than %d", maxDepth)
	}
	p.pos++ // '['
	p.skipSpace()
	out = append(out, '[')
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return append(out, ']'), nil
	}
	for first := true; ; first = false {
		if !first {
			out = append(out, ',')
		}
		var err error
		out, err = p.value(out, depth)
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of input in array")
		}
		if p.data[p.pos] == ',' {
			p.pos++
			p.skipSpace()
			continue
		}
		if p.data[p.pos] == ']' {
			p.pos++
			return append(out, ']'), nil
		}
		return nil, p.errorf("expected ',' or ']' in array")
	}
}

// number scans a JSON number per RFC 8259's grammar and appends its
// ECMAScript form.
func (p *parser) number(out []byte) ([]byte, error) {
	start := p.pos
	d := p.data
	i := p.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return nil, p.errorf("invalid number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			return nil, p.errorf("invalid number: no digits after '.'")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			return nil, p.errorf("invalid number: no digits in exponent")
		}
	}
	f, err := strconv.ParseFloat(string(d[start:i]), 64)
	if err != nil {
		return nil, p.errorf("number %s is not a finite double", d[start:i])
	}
	p.pos = i
	return appendNumber(out, f), nil
}

// appendNumber appends f as ECMAScript's Number.prototype.toString would.
func appendNumber(out []byte, f float64) []byte {
	if f == 0 {
		return append(out, '0') // also -0
	}
	fmtc := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		fmtc = 'e'
	}
	n0 := len(out)
	out = strconv.AppendFloat(out, f, fmtc, -1, 64)
	if fmtc == 'e' {
		// Go writes at least two exponent digits (1e-07); ECMAScript does not.
		b := out[n0:]
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			out = out[:len(out)-1]
		}
	}
	return out
}

// str parses a JSON string at p.pos and returns its decoded value.
func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	var sb []byte
	d := p.data
	for {
		start := p.pos
		for p.pos < len(d) && d[p.pos] != '"' && d[p.pos] != '\\' && d[p.pos] >= 0x20 {
			p.pos++
		}
		sb = append(sb, d[start:p.pos]...)
		if p.pos >= len(d) {
			return "", p.errorf("unterminated string")
		}
		switch c := d[p.pos]; {
		case c == '"':
			p.pos++
			return string(sb), nil
		case c < 0x20:
			return "", p.errorf("control character %#02x in string", c)
		}
		// backslash
		p.pos++
		if p.pos >= len(d) {
			return "", p.errorf("unterminated escape")
		}
		e := d[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			sb = append(sb, e)
		case 'b':
			sb = append(sb, '\b')
		case 'f':
			sb = append(sb, '\f')
		case 'n':
			sb = append(sb, '\n')
		case 'r':
			sb = append(sb, '\r')
		case 't':
			sb = append(sb, '\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xdc00 || p.pos+1 >= len(d) || d[p.pos] != '\\' || d[p.pos+1] != 'u' {
					return "", p.errorf("lone surrogate \\u%04x", r)
				}
				p.pos += 2
				r2, err := p.hex4()
				if err != nil {
					return "", err
				}
				dec := utf16.DecodeRune(r, r2)
				if dec == utf8.RuneError {
					return "", p.errorf("invalid surrogate pair \\u%04x\\u%04x", r, r2)
				}
				r = dec
			}
			sb = utf8.AppendRune(sb, r)
		default:
			return "", p.errorf("invalid escape \\%c", e)
		}
	}
}

func (p *parser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errorf("short \\u escape")
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, p.errorf("invalid hex digit %q in \\u escape", c)
		}
		r = r<<4 | rune(v)
	}
	p.pos += 4
	return r, nil
}

// appendString appends s as a JSON string escaped per RFC 8785.
func appendString(out []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[start:i]...)
		switch c {
		case '"', '\\':
			out = append(out, '\\', c)
		case '\b':
			out = append(out, '\\', 'b')
		case '\f':
			out = append(out, '\\', 'f')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
