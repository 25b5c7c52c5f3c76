package objects

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// slowDecodeNode is DecodeNode without the checker's shortcut.
func slowDecodeNode(blob []byte) (Node, error) {
	c, err := Canonicalize(blob)
	if err != nil {
		return Node{}, err
	}
	if !bytes.Equal(c, blob) {
		return Node{}, ErrNotNode
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(blob, &m); err != nil {
		return Node{}, ErrNotNode
	}
	payload, ok := m["payload"]
	if !ok {
		return Node{}, ErrNotNode
	}
	n := Node{Alias: AliasOf(blob), Payload: payload}
	switch len(m) {
	case 1:
		n.Type = n.Alias
	case 2:
		var t string
		if err := json.Unmarshal(m["type"], &t); err != nil || !IsAlias(t) {
			return Node{}, ErrNotNode
		}
		n.Type = Alias(t)
	default:
		return Node{}, ErrNotNode
	}
	return n, nil
}

// isCanonical must agree with Canonicalize on every input, canonical or
// not, and a node the checker decodes must be the node the slow path
// decodes.
func checkAgainstCanonicalize(t *testing.T, data []byte) {
	t.Helper()
	out, err := Canonicalize(data)
	want := err == nil && bytes.Equal(out, data)
	if got := isCanonical(data); got != want {
		t.Fatalf("isCanonical(%q) = %v, want %v (Canonicalize: %q, %v)", data, got, want, out, err)
	}
	fast, ok := decodeCanonicalNode(data)
	slow, serr := slowDecodeNode(data)
	if ok != (serr == nil) {
		t.Fatalf("decodeCanonicalNode(%q) ok = %v, slow path error %v", data, ok, serr)
	}
	if ok && !reflect.DeepEqual(fast, slow) {
		t.Fatalf("decodeCanonicalNode(%q) = %+v, slow path %+v", data, fast, slow)
	}
	if n, err := DecodeNode(data); (err == nil) != (serr == nil) || (err == nil && !reflect.DeepEqual(n, slow)) {
		t.Fatalf("DecodeNode(%q) = %+v, %v; slow path %+v, %v", data, n, err, slow, serr)
	}
}

var canonicalSeeds = []string{
	// canonical
	`{"payload":1}`, `{"payload":{"a":[1,2.5,-3,"x"],"b":null},"type":"0123456789ABC"}`,
	`{"payload":"\u001f\n\"\\","type":"0123456789ABC"}`, `0`, `-1`, `1e+21`, `1e-7`, `0.000001`,
	`123456789012345`, `1234567890123456`, `12345678901234567000`, `9007199254740993`,
	`[true,false,null]`, `{}`, `[]`, `""`, "\"\u2028\x7f\"", `{"":1,"a":2}`,
	"{\"\\r\":1,\"1\":2,\"\u0080\":3,\"\u00f6\":4,\"\u20ac\":5,\"\U0001F600\":6,\"\ufb33\":7}",
	"{\"\ue000\":1,\"\U0001F600\":2}", "{\"\U0001F600\":2,\"\ue000\":1}",
	`{"\"":1,"\\":2}`, `{"\\":1,"\"":2}`, `{"a":1,"a\u0000":2}`, `{"\u0000":1,"\u0001":2}`,
	// not canonical
	`{"payload": 1}`, `{"type":"0123456789ABC","payload":1}`, `{"a":1,"a":2}`, `-0`, `01`, `1.0`, `1E2`,
	`100000000000000000000`, `1e21`, `"\u0041"`, `"\/"`, `"\u000a"`, `"\u001F"`, `"\u007f"`,
	`"\ud83d\ude00"`, "\"\xff\"", ` 1`, `1 `, `[1,]`, `{"payload":1,}`, `{"payload":1,"type":5}`,
	`{"payload":1,"type":"abc"}`, `{"extra":1,"payload":1}`, `{"payload":1,"type":"0123456789ABC","z":1}`,
	`null`, `[{"payload":1}]`, `{"payload":1,"type":"0123456789AB\u0043"}`, ``, `{`, `"`, `"\`, `"\u00`,
	strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
	strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
}

func TestIsCanonicalAgreesWithCanonicalize(t *testing.T) {
	for _, s := range canonicalSeeds {
		checkAgainstCanonicalize(t, []byte(s))
	}
	// Every node EncodeNode writes is canonical and decodes on the fast path.
	for _, payload := range []any{1, "x", map[string]any{"b": []any{1.5, "é", nil}, "a": true}, []any{}} {
		blob, err := EncodeNode("0123456789ABC", payload)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := decodeCanonicalNode(blob); !ok {
			t.Errorf("decodeCanonicalNode(%s) refused a node EncodeNode wrote", blob)
		}
		checkAgainstCanonicalize(t, blob)
	}
}

func FuzzIsCanonical(f *testing.F) {
	for _, s := range canonicalSeeds {
		if len(s) < 1000 {
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstCanonicalize(t, data)
		// The canonical form of anything is canonical.
		if out, err := Canonicalize(data); err == nil {
			checkAgainstCanonicalize(t, out)
			if !isCanonical(out) {
				t.Fatalf("isCanonical(%q) = false for Canonicalize's own output", out)
			}
		}
	})
}
