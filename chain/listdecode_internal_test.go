package chain

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/objects"
)

// The hand-written decoders know every field of the node types: adding a
// field to a node type without teaching its decoder fails here.
func TestNodeDecodersKnowEveryField(t *testing.T) {
	for _, tc := range []struct {
		typ    reflect.Type
		fields []string
	}{
		{reflect.TypeOf(StartNode{}), startNodeFields},
		{reflect.TypeOf(StepNode{}), stepNodeFields},
		{reflect.TypeOf(CancelNode{}), cancelNodeFields},
	} {
		var names []string
		for i := 0; i < tc.typ.NumField(); i++ {
			name, _, _ := strings.Cut(tc.typ.Field(i).Tag.Get("json"), ",")
			names = append(names, name)
		}
		if !reflect.DeepEqual(names, tc.fields) {
			t.Errorf("%s has json fields %v, its decoder knows %v", tc.typ, names, tc.fields)
		}
	}
}

// Each decoder gives what encoding/json gives, or declines.
func TestNodeDecodersMatchEncodingJSON(t *testing.T) {
	full := StepNode{Start: "0123456789ABC", Role: "developer", Output: "1123456789ABC", Body: "2123456789ABC",
		Detail: "3123456789ABC", AssembledPrompt: "4123456789ABC", Agent: "mock", EdgePrompt: "Review: {{x}} é",
		StartedAtMs: 1700000000000, CompletedAtMs: -5, Cwd: "/w", Extraction: "frontmatter", Attempts: 3, Resumed: true}
	prev := objects.Alias("5123456789ABC")
	full.Prev = &prev
	canonical := func(v any) string {
		b, err := objects.MarshalCanonical(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	steps := []struct {
		payload string
		fast    bool // the fast decoder takes it
	}{
		{canonical(full), true},
		{canonical(StepNode{Role: "r"}), true},
		{`{}`, true},
		{`{"agent":null,"prev":null,"resumed":false,"role":"x"}`, true},
		{`{"extra":{"a":[1,"x\"y",{"b":null}],"c":true},"role":"x","zz":-1.5e-7}`, true},
		{`{"redactions":null,"role":"x"}`, true},
		{`{"redactions":{"a":1},"role":"x"}`, false},
		{`{"Role":"x"}`, false},
		{`{"ROLE":"x"}`, false},
		{`{"role":"a\"b"}`, false},
		{`{"role":"a\nb"}`, false},
		{`{"startedAtMs":1.5}`, false},
		{`{"startedAtMs":1e+21}`, false},
		{`{"attempts":99999999999999999999}`, false},
		{`{"role":5}`, false},
		{`{"resumed":"yes"}`, false},
		{`{"prev":"x","start":"y"}`, true},
		{`null`, false},
		{`[]`, false},
		{`"x"`, false},
	}
	for _, tc := range steps {
		var want StepNode
		werr := json.Unmarshal([]byte(tc.payload), &want)
		var got StepNode
		ok := decodeStepNode([]byte(tc.payload), &got)
		if ok != tc.fast {
			t.Errorf("decodeStepNode(%s) = %v, want %v", tc.payload, ok, tc.fast)
		}
		if ok && (werr != nil || !reflect.DeepEqual(got, want)) {
			t.Errorf("decodeStepNode(%s) = %+v; encoding/json %+v, %v", tc.payload, got, want, werr)
		}
	}
	starts := []string{canonical(StartNode{Workflow: "0123456789ABC", Prompt: "do it", Cwd: "/x"}), `{"prompt":"p"}`,
		`{"cwd":null,"other":[],"prompt":"p"}`, `{"prompt":"tab\there"}`, `{"PROMPT":"p"}`, `{"prompt":1}`}
	for _, payload := range starts {
		var want, got StartNode
		werr := json.Unmarshal([]byte(payload), &want)
		if decodeStartNode([]byte(payload), &got) && (werr != nil || got != want) {
			t.Errorf("decodeStartNode(%s) = %+v; encoding/json %+v, %v", payload, got, want, werr)
		}
	}
	cancels := []string{canonical(CancelNode{Start: "0123456789ABC", Prev: &prev, Reason: "enough", CancelledAtMs: 12}),
		`{"prev":null,"reason":"r"}`, `{"cancelledAtMs":"12"}`, `{"Reason":"r"}`}
	for _, payload := range cancels {
		var want, got CancelNode
		werr := json.Unmarshal([]byte(payload), &want)
		if decodeCancelNode([]byte(payload), &got) && (werr != nil || !reflect.DeepEqual(got, want)) {
			t.Errorf("decodeCancelNode(%s) = %+v; encoding/json %+v, %v", payload, got, want, werr)
		}
	}
}

func FuzzDecodeStepNode(f *testing.F) {
	for _, s := range []string{`{"prev":"x","role":"r","startedAtMs":5}`, `{"a":[{"b":"c"}],"resumed":true}`, `{"redactions":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := objects.Canonicalize(data); err != nil {
			return // payloads reach the decoder only after DecodeNode
		}
		if c, _ := objects.Canonicalize(data); string(c) != string(data) {
			return
		}
		var got, want StepNode
		if decodeStepNode(data, &got) {
			if err := json.Unmarshal(data, &want); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeStepNode(%s) = %+v; encoding/json %+v, %v", data, got, want, err)
			}
		}
	})
}

// decodeFlatObject gives what encoding/json gives, or refuses.
func TestDecodeFlatObject(t *testing.T) {
	for _, tc := range []struct {
		payload string
		ok      bool
	}{
		{`{}`, true},
		{`{"$status":"approved"}`, true},
		{`{"$status":"again","summary":"step 1 of thread 2"}`, true},
		{`{"a":true,"b":false,"c":null,"d":"é ✓"}`, true},
		{`{"a":"x\"y"}`, false},
		{`{"a":1}`, false},
		{`{"a":{"b":"c"}}`, false},
		{`{"a":["b"]}`, false},
		{`{"a\n":"b"}`, false},
		{`null`, false},
		{`"text"`, false},
		{`{"a":"b"`, false},
		{`{"a":"b"}x`, false},
		{`{"a":tru}`, false},
	} {
		got, ok := decodeFlatObject([]byte(tc.payload))
		if ok != tc.ok {
			t.Errorf("decodeFlatObject(%s): ok %v, want %v", tc.payload, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(tc.payload), &want); err != nil {
			t.Fatalf("%s: %v", tc.payload, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decodeFlatObject(%s) = %#v, want %#v", tc.payload, got, want)
		}
	}
}
