package chain

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/git-uwf/git-uwf/objects"
)

// Read-path fast decoders of thread nodes, not a cache: no state.

// Thread nodes are decoded once per commit of every chain walk, so a long
// thread spends most of a `thread read` in encoding/json's reflection. The
// payloads are canonical JSON of a known shape; the decoders below read
// that shape field by field. Anything they do not recognise (an unknown or
// repeated key, an escaped key, a value of an unexpected form) makes them
// give up, and the payload is decoded by encoding/json instead, so the
// result is always what json.Unmarshal gives. A test fills every field of
// each node type and fails when a decoder does not know one.

// decodeStartNode decodes a StartNode payload.
func decodeStartNode(n objects.Node, v *StartNode) error {
	return decodeThreadNode(n, v, startNodeFields)
}

// decodeStepNode decodes a StepNode payload.
func decodeStepNode(n objects.Node, v *StepNode) error {
	return decodeThreadNode(n, v, stepNodeFields)
}

// decodeCancelNode decodes a CancelNode payload.
func decodeCancelNode(n objects.Node, v *CancelNode) error {
	return decodeThreadNode(n, v, cancelNodeFields)
}

// nodeField is one member of a thread node payload: its key and how its
// value is set.
type nodeField[T any] struct {
	key string
	set func(val string, v *T) bool
}

// decodeThreadNode decodes the payload of n into v, member by member
// through fields when it can, through encoding/json otherwise.
func decodeThreadNode[T any](n objects.Node, v *T, fields []nodeField[T]) error {
	if decodeFields(n.Payload, v, fields) {
		return nil
	}
	var zero T
	*v = zero
	return n.Decode(v)
}

// decodeFields is the field-by-field decoder: it fails for a member that
// is not in fields, one seen before, or a value its field does not take.
// The payload is copied into one string once; the values that need no
// unescaping are substrings of it, so a node costs few allocations.
func decodeFields[T any](p []byte, v *T, fields []nodeField[T]) bool {
	var seen uint32
	return jsonMembers(string(p), func(key, val string) bool {
		i := fieldIndex(fields, key)
		return first(&seen, i) && fields[i].set(val, v)
	})
}

// fieldIndex returns the index of the member key in fields, or -1.
func fieldIndex[T any, K bytestring](fields []nodeField[T], key K) int {
	for i := range fields {
		if fields[i].key == string(key) {
			return i
		}
	}
	return -1
}

var startNodeFields = []nodeField[StartNode]{
	{"workflow", func(val string, v *StartNode) bool { return setAlias(val, &v.Workflow) }},
	{"prompt", func(val string, v *StartNode) bool { return setString(val, &v.Prompt) }},
	{"cwd", func(val string, v *StartNode) bool { return setString(val, &v.Cwd) }},
}

var cancelNodeFields = []nodeField[CancelNode]{
	{"start", func(val string, v *CancelNode) bool { return setAlias(val, &v.Start) }},
	{"prev", func(val string, v *CancelNode) bool { return setAliasPtr(val, &v.Prev) }},
	{"reason", func(val string, v *CancelNode) bool { return setString(val, &v.Reason) }},
	{"cancelledAtMs", func(val string, v *CancelNode) bool { return setInt64(val, &v.CancelledAtMs) }},
}

var stepNodeFields = []nodeField[StepNode]{
	{"start", func(val string, v *StepNode) bool { return setAlias(val, &v.Start) }},
	{"prev", func(val string, v *StepNode) bool { return setAliasPtr(val, &v.Prev) }},
	{"role", func(val string, v *StepNode) bool { return setString(val, &v.Role) }},
	{"output", func(val string, v *StepNode) bool { return setAlias(val, &v.Output) }},
	{"body", func(val string, v *StepNode) bool { return setAlias(val, &v.Body) }},
	{"detail", func(val string, v *StepNode) bool { return setAlias(val, &v.Detail) }},
	{"assembledPrompt", func(val string, v *StepNode) bool { return setAlias(val, &v.AssembledPrompt) }},
	{"agent", func(val string, v *StepNode) bool { return setString(val, &v.Agent) }},
	{"edgePrompt", func(val string, v *StepNode) bool { return setString(val, &v.EdgePrompt) }},
	{"startedAtMs", func(val string, v *StepNode) bool { return setInt64(val, &v.StartedAtMs) }},
	{"completedAtMs", func(val string, v *StepNode) bool { return setInt64(val, &v.CompletedAtMs) }},
	{"cwd", func(val string, v *StepNode) bool { return setString(val, &v.Cwd) }},
	{"extraction", func(val string, v *StepNode) bool { return setString(val, &v.Extraction) }},
	{"attempts", func(val string, v *StepNode) bool {
		n := int64(v.Attempts)
		if !setInt64(val, &n) {
			return false
		}
		v.Attempts = int(n)
		return true
	}},
	{"redactions", func(val string, v *StepNode) bool { return setIntMap(val, &v.Redactions) }},
	{"resumed", func(val string, v *StepNode) bool { return setBool(val, &v.Resumed) }},
	{"child", func(val string, v *StepNode) bool {
		s := string(v.Child)
		if !setString(val, &s) {
			return false
		}
		v.Child = ThreadID(s)
		return true
	}},
}

// first marks member i seen, and fails for an unknown (negative) or
// repeated one.
func first(seen *uint32, i int) bool {
	if i < 0 || *seen&(1<<i) != 0 {
		return false
	}
	*seen |= 1 << i
	return true
}

func isNull[T bytestring](val T) bool { return string(val) == "null" }

// bytestring is JSON text held as a string or as bytes.
type bytestring interface{ ~string | ~[]byte }

// setString decodes a JSON string; null leaves s unchanged, as
// json.Unmarshal does.
func setString[T bytestring](val T, s *string) bool {
	if isNull(val) {
		return true
	}
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
		return false
	}
	inner := val[1 : len(val)-1]
	ascii := true
	for i := 0; i < len(inner); i++ {
		switch c := inner[i]; {
		case c == '\\' || c < 0x20 || c == '"':
			return json.Unmarshal([]byte(val), s) == nil
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && !utf8.ValidString(string(inner)) {
		return json.Unmarshal([]byte(val), s) == nil
	}
	*s = string(inner)
	return true
}

func setAlias(val string, a *objects.Alias) bool {
	s := string(*a)
	if !setString(val, &s) {
		return false
	}
	*a = objects.Alias(s)
	return true
}

func setAliasPtr(val string, a **objects.Alias) bool {
	if isNull(val) {
		*a = nil
		return true
	}
	var s objects.Alias
	if !setAlias(val, &s) {
		return false
	}
	*a = &s
	return true
}

// setInt64 accepts a plain JSON integer only.
func setInt64(val string, n *int64) bool {
	if isNull(val) {
		return true
	}
	digits := val
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if c := digits[i]; c < '0' || c > '9' {
			return false
		}
	}
	v, err := strconv.ParseInt(val, 10, 64)
	if err != nil {
		return false
	}
	*n = v
	return true
}

func setBool(val string, b *bool) bool {
	switch val {
	case "true":
		*b = true
	case "false":
		*b = false
	case "null":
	default:
		return false
	}
	return true
}

// setIntMap decodes an object of integers into a new map (null: nil).
func setIntMap(val string, m *map[string]int) bool {
	if isNull(val) {
		*m = nil
		return true
	}
	out := map[string]int{}
	ok := jsonMembers(val, func(key, v string) bool {
		if _, dup := out[key]; dup {
			return false
		}
		var n int64
		if isNull(v) || !setInt64(v, &n) {
			return false
		}
		out[key] = int(n)
		return true
	})
	if !ok {
		return false
	}
	*m = out
	return true
}

// jsonMembers calls fn with each member of the JSON object data: its key
// (which must need no unescaping) and the raw bytes of its value. It
// reports false when data is not such an object or fn returns false.
func jsonMembers[T bytestring](data T, fn func(key, val T) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		end := i + 1
		for end < len(data) && data[end] != '"' {
			if data[end] == '\\' || data[end] < 0x20 {
				return false
			}
			end++
		}
		if end >= len(data) || !utf8.ValidString(string(data[i+1:end])) {
			return false
		}
		key := data[i+1 : end]
		i = skipSpace(data, end+1)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vend, ok := skipValue(data, i)
		if !ok || !fn(key, data[i:vend]) {
			return false
		}
		i = skipSpace(data, vend)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return skipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}

func skipSpace[T bytestring](data T, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at i. It checks
// only as much as it needs to find the end; the setters check the rest.
func skipValue[T bytestring](data T, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch c := data[i]; {
	case c == '"':
		return skipString(data, i)
	case c == '{' || c == '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				end, ok := skipString(data, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	default:
		j := i
		for j < len(data) {
			c := data[j]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			j++
		}
		return j, j > i
	}
}

func skipString[T bytestring](data T, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// decodeFlatObject decodes an object whose members are all strings,
// booleans or null (what an agent's output usually is) into the map
// encoding/json would give. False for anything else, or a repeated key.
func decodeFlatObject(payload []byte) (map[string]any, bool) {
	m := make(map[string]any, 4)
	ok := jsonMembers(string(payload), func(key, val string) bool {
		if _, dup := m[key]; dup || val == "" {
			return false
		}
		switch val[0] {
		case '"':
			var s string
			if !setString(val, &s) {
				return false
			}
			m[key] = s
		case 'n':
			if !isNull(val) {
				return false
			}
			m[key] = nil
		case 't', 'f':
			var b bool
			if !setBool(val, &b) {
				return false
			}
			m[key] = b
		default:
			return false
		}
		return true
	})
	return m, ok
}
