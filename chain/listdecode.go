package chain

import (
	"strconv"
	"strings"

	"github.com/git-uwf/git-uwf/objects"
)

// Decoding thread node payloads without reflection, for the batch path of
// summarizeMany, where encoding/json was a large part of the cost. A
// payload has passed objects.DecodeNode, so it is canonical JSON: no
// whitespace, members sorted and unique, strings escaped only where they
// must be. The decoders handle what git-uwf writes; on anything else (an
// escaped string, a number that is not a plain integer, a member name
// that encoding/json would match case-insensitively, a non-null map) they
// report false and the caller decodes with encoding/json, so the result is
// always what encoding/json gives. A test fails when a node type gains a
// field the decoders do not know.

// payloadReader walks one canonical JSON object.
type payloadReader struct {
	data []byte
	pos  int
}

// members calls field for each member of the object; field reads the
// value and reports whether it could. Names field does not know must be
// passed to skip.
func (p *payloadReader) members(field func(name []byte) bool) bool {
	d := p.data
	if p.pos >= len(d) || d[p.pos] != '{' {
		return false
	}
	p.pos++
	if p.pos < len(d) && d[p.pos] == '}' {
		p.pos++
		return p.pos == len(d)
	}
	for {
		name, ok := p.plainBytes()
		if !ok || p.pos >= len(d) || d[p.pos] != ':' {
			return false
		}
		p.pos++
		if !field(name) {
			return false
		}
		if p.pos >= len(d) {
			return false
		}
		switch d[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return p.pos == len(d)
		default:
			return false
		}
	}
}

// plainBytes reads a string without escapes and returns its contents.
func (p *payloadReader) plainBytes() ([]byte, bool) {
	d := p.data
	if p.pos >= len(d) || d[p.pos] != '"' {
		return nil, false
	}
	end := p.pos + 1
	for end < len(d) && d[end] != '"' {
		if d[end] == '\\' {
			return nil, false
		}
		end++
	}
	if end >= len(d) {
		return nil, false
	}
	b := d[p.pos+1 : end]
	p.pos = end + 1
	return b, true
}

// plainString reads a string without escapes.
func (p *payloadReader) plainString() (string, bool) {
	b, ok := p.plainBytes()
	return string(b), ok
}

// null consumes a null, if there is one.
func (p *payloadReader) null() bool {
	if strings.HasPrefix(string(p.data[p.pos:min(p.pos+4, len(p.data))]), "null") {
		p.pos += 4
		return true
	}
	return false
}

// str reads a string value into s (null leaves s as it is, as
// encoding/json does).
func (p *payloadReader) str(s *string) bool {
	if p.null() {
		return true
	}
	v, ok := p.plainString()
	*s = v
	return ok
}

func (p *payloadReader) alias(a *objects.Alias) bool {
	s := string(*a)
	ok := p.str(&s)
	*a = objects.Alias(s)
	return ok
}

// integer reads a plain integer of bits bits.
func (p *payloadReader) integer(bits int) (int64, bool) {
	d := p.data
	end := p.pos
	if end < len(d) && d[end] == '-' {
		end++
	}
	for end < len(d) && d[end] >= '0' && d[end] <= '9' {
		end++
	}
	if end < len(d) && (d[end] == '.' || d[end] == 'e' || d[end] == 'E') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(d[p.pos:end]), 10, bits)
	if err != nil {
		return 0, false
	}
	p.pos = end
	return n, true
}

func (p *payloadReader) int64(v *int64) bool {
	if p.null() {
		return true
	}
	n, ok := p.integer(64)
	*v = n
	return ok
}

func (p *payloadReader) int(v *int) bool {
	if p.null() {
		return true
	}
	n, ok := p.integer(strconv.IntSize)
	*v = int(n)
	return ok
}

func (p *payloadReader) bool(v *bool) bool {
	d := p.data[p.pos:]
	switch {
	case p.null():
		return true
	case strings.HasPrefix(string(d[:min(4, len(d))]), "true"):
		*v, p.pos = true, p.pos+4
		return true
	case strings.HasPrefix(string(d[:min(5, len(d))]), "false"):
		*v, p.pos = false, p.pos+5
		return true
	}
	return false
}

// skip reads a value of a member no field is named after, unless
// encoding/json would match its name to one of fields regardless of case.
func (p *payloadReader) skip(name []byte, fields []string) bool {
	for _, f := range fields {
		if strings.EqualFold(string(name), f) {
			return false
		}
	}
	c := valueSkipper{data: p.data, pos: p.pos}
	if !c.value() {
		return false
	}
	p.pos = c.pos
	return true
}

// valueSkipper skips one canonical JSON value.
type valueSkipper struct {
	data []byte
	pos  int
}

func (c *valueSkipper) value() bool {
	d := c.data
	if c.pos >= len(d) {
		return false
	}
	switch d[c.pos] {
	case '"':
		c.pos++
		for c.pos < len(d) {
			switch d[c.pos] {
			case '\\':
				c.pos += 2
				continue
			case '"':
				c.pos++
				return true
			}
			c.pos++
		}
		return false
	case '{', '[':
		close := byte('}')
		if d[c.pos] == '[' {
			close = ']'
		}
		c.pos++
		if c.pos < len(d) && d[c.pos] == close {
			c.pos++
			return true
		}
		for {
			if close == '}' {
				if !c.value() || c.pos >= len(d) || d[c.pos] != ':' {
					return false
				}
				c.pos++
			}
			if !c.value() || c.pos >= len(d) {
				return false
			}
			if d[c.pos] == close {
				c.pos++
				return true
			}
			if d[c.pos] != ',' {
				return false
			}
			c.pos++
		}
	default:
		start := c.pos
		for c.pos < len(d) && d[c.pos] != ',' && d[c.pos] != '}' && d[c.pos] != ']' && d[c.pos] != ':' {
			c.pos++
		}
		return c.pos > start
	}
}

var (
	startNodeFields  = []string{"workflow", "prompt", "cwd"}
	stepNodeFields   = []string{"start", "prev", "role", "output", "body", "detail", "assembledPrompt", "agent", "edgePrompt", "startedAtMs", "completedAtMs", "cwd", "extraction", "attempts", "redactions", "resumed"}
	cancelNodeFields = []string{"start", "prev", "reason", "cancelledAtMs"}
)

// decodeStartNode decodes a StartNode payload as encoding/json would.
func decodeStartNode(payload []byte, s *StartNode) bool {
	p := payloadReader{data: payload}
	return p.members(func(name []byte) bool {
		switch string(name) {
		case "workflow":
			return p.alias(&s.Workflow)
		case "prompt":
			return p.str(&s.Prompt)
		case "cwd":
			return p.str(&s.Cwd)
		}
		return p.skip(name, startNodeFields)
	})
}

// prev reads a *objects.Alias: null is nil.
func (p *payloadReader) prev(a **objects.Alias) bool {
	if p.null() {
		*a = nil
		return true
	}
	v, ok := p.plainString()
	al := objects.Alias(v)
	*a = &al
	return ok
}

// decodeStepNode decodes a StepNode payload as encoding/json would.
func decodeStepNode(payload []byte, s *StepNode) bool {
	p := payloadReader{data: payload}
	return p.members(func(name []byte) bool {
		switch string(name) {
		case "start":
			return p.alias(&s.Start)
		case "prev":
			return p.prev(&s.Prev)
		case "role":
			return p.str(&s.Role)
		case "output":
			return p.alias(&s.Output)
		case "body":
			return p.alias(&s.Body)
		case "detail":
			return p.alias(&s.Detail)
		case "assembledPrompt":
			return p.alias(&s.AssembledPrompt)
		case "agent":
			return p.str(&s.Agent)
		case "edgePrompt":
			return p.str(&s.EdgePrompt)
		case "startedAtMs":
			return p.int64(&s.StartedAtMs)
		case "completedAtMs":
			return p.int64(&s.CompletedAtMs)
		case "cwd":
			return p.str(&s.Cwd)
		case "extraction":
			return p.str(&s.Extraction)
		case "attempts":
			return p.int(&s.Attempts)
		case "redactions":
			return p.null() // a map: left to encoding/json
		case "resumed":
			return p.bool(&s.Resumed)
		}
		return p.skip(name, stepNodeFields)
	})
}

// decodeCancelNode decodes a CancelNode payload as encoding/json would.
func decodeCancelNode(payload []byte, c *CancelNode) bool {
	p := payloadReader{data: payload}
	return p.members(func(name []byte) bool {
		switch string(name) {
		case "start":
			return p.alias(&c.Start)
		case "prev":
			return p.prev(&c.Prev)
		case "reason":
			return p.str(&c.Reason)
		case "cancelledAtMs":
			return p.int64(&c.CancelledAtMs)
		}
		return p.skip(name, cancelNodeFields)
	})
}

// decodeHeadNode sets the kind and decoded node of e from e.Node, as
// decodeNode does, without reflection for the payloads git-uwf writes.
func (r *Repo) decodeHeadNode(e *Entry) error {
	title, err := r.schemaTitle(e.Node.Type)
	if err != nil {
		return err
	}
	ok := false
	switch title {
	case "uwf.StartNode":
		s := &StartNode{}
		if ok = decodeStartNode(e.Node.Payload, s); ok {
			e.Kind, e.Start = KindStart, s
		}
	case "uwf.StepNode":
		s := &StepNode{}
		if ok = decodeStepNode(e.Node.Payload, s); ok {
			e.Kind, e.Step = KindStep, s
		}
	case "uwf.CancelNode":
		c := &CancelNode{}
		if ok = decodeCancelNode(e.Node.Payload, c); ok {
			e.Kind, e.Cancel = KindCancel, c
		}
	}
	if !ok {
		return r.decodeNode(e)
	}
	return nil
}

// decodeFlatObject decodes an object whose members are all plain strings,
// booleans or null (what an agent's output usually is) into the map
// encoding/json would give. False for anything else.
func decodeFlatObject(payload []byte) (map[string]any, bool) {
	p := payloadReader{data: payload}
	m := make(map[string]any, 4)
	ok := p.members(func(name []byte) bool {
		d := p.data[p.pos:]
		if len(d) == 0 {
			return false
		}
		var v any
		switch d[0] {
		case '"':
			s, ok := p.plainString()
			if !ok {
				return false
			}
			v = s
		case 'n':
			if !p.null() {
				return false
			}
		case 't', 'f':
			var b bool
			if !p.bool(&b) {
				return false
			}
			v = b
		default:
			return false
		}
		m[string(name)] = v
		return true
	})
	return m, ok
}
