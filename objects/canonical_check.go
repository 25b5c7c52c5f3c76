package objects

import (
	"bytes"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// Checking that bytes are already canonical, without building their
// canonical form: DecodeNode reads every node through this, and a node
// that passes is decoded without Canonicalize's allocations. The checker
// accepts exactly the texts t for which Canonicalize(t) returns t (a fuzz
// test holds it to that); anything it rejects goes through Canonicalize,
// which words the error.

// span is a half-open byte range of the checked text.
type span struct{ start, end int }

// topMember is a member of the top-level object: its name (without the
// quotes) and its value.
type topMember struct{ name, value span }

// checker walks canonical JSON text.
type checker struct {
	data []byte
	pos  int
	// the first members of the top-level object, when it is one
	top  [3]topMember
	ntop int
}

// isCanonical reports whether Canonicalize(data) would return data
// unchanged.
func isCanonical(data []byte) bool {
	c := checker{data: data}
	return c.check()
}

func (c *checker) check() bool {
	if !utf8.Valid(c.data) {
		return false
	}
	if !c.value(0) {
		return false
	}
	return c.pos == len(c.data)
}

// value checks one value at c.pos; depth is that of the enclosing
// container, as in parser.value.
func (c *checker) value(depth int) bool {
	d := c.data
	if c.pos >= len(d) {
		return false
	}
	switch b := d[c.pos]; {
	case b == '{':
		return c.object(depth + 1)
	case b == '[':
		return c.array(depth + 1)
	case b == '"':
		_, ok := c.str()
		return ok
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number()
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(d)-c.pos >= len(lit) && string(d[c.pos:c.pos+len(lit)]) == lit {
				c.pos += len(lit)
				return true
			}
		}
		return false
	}
}

func (c *checker) object(depth int) bool {
	if depth > maxDepth {
		return false
	}
	d := c.data
	c.pos++ // '{'
	if c.pos < len(d) && d[c.pos] == '}' {
		c.pos++
		return true
	}
	prev := span{-1, -1}
	for {
		if c.pos >= len(d) || d[c.pos] != '"' {
			return false
		}
		name, ok := c.str()
		if !ok {
			return false
		}
		if prev.start >= 0 && !c.less(prev, name) {
			return false // out of order, or a duplicate
		}
		prev = name
		if c.pos >= len(d) || d[c.pos] != ':' {
			return false
		}
		c.pos++
		vstart := c.pos
		if !c.value(depth) {
			return false
		}
		if depth == 1 {
			if c.ntop < len(c.top) {
				c.top[c.ntop] = topMember{name: name, value: span{vstart, c.pos}}
			}
			c.ntop++
		}
		if c.pos >= len(d) {
			return false
		}
		switch d[c.pos] {
		case ',':
			c.pos++
		case '}':
			c.pos++
			return true
		default:
			return false
		}
	}
}

func (c *checker) array(depth int) bool {
	if depth > maxDepth {
		return false
	}
	d := c.data
	c.pos++ // '['
	if c.pos < len(d) && d[c.pos] == ']' {
		c.pos++
		return true
	}
	for {
		if !c.value(depth) {
			return false
		}
		if c.pos >= len(d) {
			return false
		}
		switch d[c.pos] {
		case ',':
			c.pos++
		case ']':
			c.pos++
			return true
		default:
			return false
		}
	}
}

// str checks a string at c.pos written as appendString writes it, and
// returns the span of its contents.
func (c *checker) str() (span, bool) {
	d := c.data
	c.pos++ // opening quote
	start := c.pos
	for c.pos < len(d) {
		b := d[c.pos]
		switch {
		case b == '"':
			c.pos++
			return span{start, c.pos - 1}, true
		case b < 0x20:
			return span{}, false
		case b != '\\':
			c.pos++
			continue
		}
		if c.pos+1 >= len(d) {
			return span{}, false
		}
		switch d[c.pos+1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			c.pos += 2
		case 'u':
			// Only control characters without a short escape.
			if c.pos+6 > len(d) || d[c.pos+2] != '0' || d[c.pos+3] != '0' {
				return span{}, false
			}
			hi, lo := d[c.pos+4], d[c.pos+5]
			if hi != '0' && hi != '1' {
				return span{}, false
			}
			if !(lo >= '0' && lo <= '9' || lo >= 'a' && lo <= 'f') {
				return span{}, false
			}
			switch v := (hi-'0')<<4 | hexValue(lo); v {
			case '\b', '\f', '\n', '\r', '\t':
				return span{}, false
			}
			c.pos += 6
		default:
			return span{}, false
		}
	}
	return span{}, false
}

func hexValue(b byte) byte {
	if b >= 'a' {
		return b - 'a' + 10
	}
	return b - '0'
}

// less reports whether member name a sorts before b by UTF-16 code units.
// Byte order of UTF-8 agrees with that unless a name holds an escape or a
// character at or above U+E000.
func (c *checker) less(a, b span) bool {
	x, y := c.data[a.start:a.end], c.data[b.start:b.end]
	if !needsUnits(x) && !needsUnits(y) {
		return bytes.Compare(x, y) < 0
	}
	ux, ok1 := c.units(a)
	uy, ok2 := c.units(b)
	return ok1 && ok2 && slices.Compare(ux, uy) < 0
}

func needsUnits(s []byte) bool {
	for _, b := range s {
		if b == '\\' || b >= 0xee {
			return true
		}
	}
	return false
}

// units decodes the string whose contents are sp into UTF-16 code units.
func (c *checker) units(sp span) ([]uint16, bool) {
	p := parser{data: c.data, pos: sp.start - 1}
	s, err := p.str()
	if err != nil {
		return nil, false
	}
	return utf16.Encode([]rune(s)), true
}

// number checks that the number at c.pos is written as appendNumber
// writes it.
func (c *checker) number() bool {
	d := c.data
	start := c.pos
	i := start
	if i < len(d) && d[i] == '-' {
		i++
	}
	digits := i
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	nd := i - digits
	plain := nd > 0 && (i == len(d) || (d[i] != '.' && d[i] != 'e' && d[i] != 'E'))
	if plain && nd <= 15 {
		// A plain integer of at most 15 digits is exact in a double and
		// written back digit for digit; a leading zero is only "0" itself
		// ("-0" is written "0", and "01" is not a number).
		if d[digits] == '0' && (nd > 1 || digits > start) {
			return false
		}
		c.pos = i
		return true
	}
	p := parser{data: d, pos: start}
	var buf [40]byte
	out, err := p.number(buf[:0])
	if err != nil || !bytes.Equal(out, d[start:p.pos]) {
		return false
	}
	c.pos = p.pos
	return true
}

// decodeCanonicalNode decodes blob when it is a canonical node; false
// sends the caller to the path that words the error.
func decodeCanonicalNode(blob []byte) (Node, bool) {
	c := checker{data: blob}
	if len(blob) == 0 || blob[0] != '{' || !c.check() {
		return Node{}, false
	}
	name := func(m topMember) string { return string(blob[m.name.start:m.name.end]) }
	if c.ntop < 1 || c.ntop > 2 || name(c.top[0]) != "payload" {
		return Node{}, false
	}
	pv := c.top[0].value
	n := Node{Alias: AliasOf(blob), Payload: append([]byte(nil), blob[pv.start:pv.end]...)}
	if c.ntop == 1 {
		n.Type = n.Alias
		return n, true
	}
	tv := c.top[1].value
	if name(c.top[1]) != "type" || blob[tv.start] != '"' {
		return Node{}, false
	}
	t := string(blob[tv.start+1 : tv.end-1])
	if !IsAlias(t) {
		return Node{}, false
	}
	n.Type = Alias(t)
	return n, true
}
