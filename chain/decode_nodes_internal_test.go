package chain

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/objects"
)

// fill sets every field of the struct v points to a non-zero value.
func fill(t *testing.T, v any) {
	t.Helper()
	s := reflect.ValueOf(v).Elem()
	for i := 0; i < s.NumField(); i++ {
		f := s.Field(i)
		name := s.Type().Field(i).Name
		switch f.Kind() {
		case reflect.String:
			f.SetString(name + " \"value\"\n\twith é")
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(1000 + i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Pointer:
			p := reflect.New(f.Type().Elem())
			p.Elem().SetString(name)
			f.Set(p)
		case reflect.Map:
			m := reflect.MakeMap(f.Type())
			m.SetMapIndex(reflect.ValueOf("k"), reflect.ValueOf(7).Convert(f.Type().Elem()))
			f.Set(m)
		default:
			t.Fatalf("%s.%s: fill knows no %s", s.Type(), name, f.Kind())
		}
	}
}

// Every field a thread node carries must be known to its field-by-field
// decoder: one it does not know would still decode (through encoding/json),
// but slowly.
func TestFastNodeDecodersKnowEveryField(t *testing.T) {
	for _, tc := range []struct {
		v    any
		fast func([]byte) (any, bool)
	}{
		{&StepNode{}, func(p []byte) (any, bool) { var v StepNode; return &v, decodeFields(p, &v, stepNodeFields) }},
		{&StartNode{}, func(p []byte) (any, bool) { var v StartNode; return &v, decodeFields(p, &v, startNodeFields) }},
		{&CancelNode{}, func(p []byte) (any, bool) { var v CancelNode; return &v, decodeFields(p, &v, cancelNodeFields) }},
	} {
		fill(t, tc.v)
		p, err := objects.MarshalCanonical(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := tc.fast(p)
		if !ok {
			t.Errorf("%T: the fast decoder gave up on %s (a field it does not know?)", tc.v, p)
			continue
		}
		if !reflect.DeepEqual(got, tc.v) {
			t.Errorf("%T: fast decoder\n got %+v\nwant %+v", tc.v, got, tc.v)
		}
	}
}

var stepPayloads = []string{
	`{"agent":"mock","completedAtMs":1700000000123,"cwd":"/w","edgePrompt":"Do it.","output":"0ABCDEFGHJKMN","prev":null,"role":"worker","start":"0ABCDEFGHJKMP","startedAtMs":1700000000000}`,
	`{"agent":"a\tb","edgePrompt":"line\nnext \"q\" \\ \u00e9 \ud83d\ude00","prev":"0ABCDEFGHJKMN","role":"r"}`,
	`{"redactions":{"api key":2,"token":1},"resumed":true,"attempts":3,"extraction":"fenced"}`,
	`{"redactions":null,"resumed":false,"attempts":0,"prev":null}`,
	`{"role":"x","Role":"y"}`,
	`{"role":"x","role":"y"}`,
	`{"unknown":1,"role":"x"}`,
	`{"startedAtMs":1.5}`,
	`{"startedAtMs":1e3}`,
	`{"startedAtMs":-0}`,
	`{"startedAtMs":012}`,
	`{"startedAtMs":99999999999999999999}`,
	`{"startedAtMs":"12"}`,
	`{"role":12}`,
	`{"role":null,"agent":null}`,
	`{"resumed":1}`,
	`{"redactions":{"a":1,"a":2}}`,
	`{"redactions":{"a":1.5}}`,
	`{"redactions":[]}`,
	"{\"role\":\"bad \xff utf8\"}",
	"{\"role\":\"ctl \x01\"}",
	` { "role" : "spaced" , "agent" : "a" } `,
	`{}`,
	`null`,
	`[]`,
	`{"role":"x"`,
	`{"role":"x"}}`,
	`{"role":"x",}`,
	`{"prev":{"a":"b"}}`,
	`{"\u0072ole":"escaped key"}`,
	``,
}

// Whatever the payload, decoding gives exactly what json.Unmarshal gives.
func TestDecodeStepNodeMatchesEncodingJSON(t *testing.T) {
	for _, p := range stepPayloads {
		checkStepDecode(t, []byte(p))
	}
}

func FuzzDecodeStepNode(f *testing.F) {
	for _, p := range stepPayloads {
		f.Add([]byte(p))
	}
	f.Fuzz(checkStepDecode)
}

func checkStepDecode(t *testing.T, p []byte) {
	var want StepNode
	werr := json.Unmarshal(p, &want)
	var got StepNode
	gerr := decodeStepNode(objects.Node{Payload: p}, &got)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%q: error %v, encoding/json: %v", p, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", p, got, want)
	}
}

// statusField gives what a decoded output map holds under "$status", or
// gives up.
func TestStatusFieldMatchesDecodedMap(t *testing.T) {
	for _, p := range []string{
		`{"$status":"done","summary":"s"}`, `{"summary":"s"}`, `{"$status":3}`, `{"$status":null}`,
		`{"$status":"a","$status":"b"}`, `{"$status":"a","$status":1}`, `{"$status":"esc\"aped\u00e9"}`,
		`{"$status":"x","a":tru}`, `{"$status":"x"`, `[]`, `null`, `"s"`, `{}`, `{"\u0024status":"x"}`,
		`{"nested":{"$status":"no"}}`, "{\"$status\":\"\xff\"}",
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(p), &m); err != nil {
			m = nil
		}
		want, _ := m["$status"].(string)
		got, ok := statusField([]byte(p))
		if ok && got != want {
			t.Errorf("%s: status %q, want %q", p, got, want)
		}
		if !ok && (p == `{"$status":"done","summary":"s"}` || p == `{"summary":"s"}`) {
			t.Errorf("%s: the fast path gave up on a plain output", p)
		}
	}
}

func TestFormatDurationMatchesFmt(t *testing.T) {
	old := func(d time.Duration) string {
		switch {
		case d < time.Second:
			return fmt.Sprintf("%dms", d.Milliseconds())
		case d < time.Minute:
			return fmt.Sprintf("%.1fs", d.Seconds())
		default:
			return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
		}
	}
	for _, d := range []time.Duration{-90 * time.Second, -1500 * time.Millisecond, -time.Millisecond, 0, 999 * time.Microsecond,
		5 * time.Millisecond, 999 * time.Millisecond, time.Second, 1049 * time.Millisecond, 1050 * time.Millisecond,
		12345 * time.Millisecond, 59999 * time.Millisecond, time.Minute, 61 * time.Second, 245 * time.Second,
		59*time.Minute + 59*time.Second, 3 * time.Hour, 1<<63 - 1} {
		if got, want := FormatDuration(d), old(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// decodeFlatObject gives what encoding/json gives, or refuses; it refuses
// every value that is not a string, a boolean or null.
func TestDecodeFlatObject(t *testing.T) {
	for _, tc := range []struct {
		payload  string
		mustFail bool
	}{
		{payload: `{}`},
		{payload: `{"$status":"approved"}`},
		{payload: `{"$status":"again","summary":"step 1 of thread 2"}`},
		{payload: `{"a":true,"b":false,"c":null,"d":"é ✓"}`},
		{payload: `{"a":"x\"y"}`},
		{payload: `{"a":1}`, mustFail: true},
		{payload: `{"a":{"b":"c"}}`, mustFail: true},
		{payload: `{"a":["b"]}`, mustFail: true},
		{payload: `{"a":"b","a":"c"}`, mustFail: true},
		{payload: `null`, mustFail: true},
		{payload: `"text"`, mustFail: true},
		{payload: `{"a":"b"`, mustFail: true},
		{payload: `{"a":"b"}x`, mustFail: true},
		{payload: `{"a":tru}`, mustFail: true},
	} {
		got, ok := decodeFlatObject([]byte(tc.payload))
		if ok && tc.mustFail {
			t.Errorf("decodeFlatObject(%s) = %#v, want a refusal", tc.payload, got)
			continue
		}
		if !ok {
			if !tc.mustFail {
				t.Errorf("decodeFlatObject(%s) refused a flat object", tc.payload)
			}
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

func BenchmarkDecodeThreadNodes(b *testing.B) {
	step := objects.Node{Payload: []byte(`{"agent":"mock","assembledPrompt":"0ABCDEFGHJKMQ","body":"0ABCDEFGHJKMR","completedAtMs":1700000000123,"cwd":".","edgePrompt":"Do it.","output":"0ABCDEFGHJKMN","prev":"0ABCDEFGHJKMS","role":"worker","start":"0ABCDEFGHJKMP","startedAtMs":1700000000000}`)}
	start := objects.Node{Payload: []byte(`{"cwd":".","prompt":"Write the thing.","workflow":"0ABCDEFGHJKMN"}`)}
	cancel := objects.Node{Payload: []byte(`{"cancelledAtMs":1700000000123,"prev":"0ABCDEFGHJKMN","reason":"cancelled","start":"0ABCDEFGHJKMP"}`)}
	b.Run("step", func(b *testing.B) {
		for b.Loop() {
			var v StepNode
			if err := decodeStepNode(step, &v); err != nil || v.Role != "worker" {
				b.Fatal(err, v)
			}
		}
	})
	b.Run("start", func(b *testing.B) {
		for b.Loop() {
			var v StartNode
			if err := decodeStartNode(start, &v); err != nil || v.Cwd != "." {
				b.Fatal(err, v)
			}
		}
	})
	b.Run("cancel", func(b *testing.B) {
		for b.Loop() {
			var v CancelNode
			if err := decodeCancelNode(cancel, &v); err != nil || v.Reason != "cancelled" {
				b.Fatal(err, v)
			}
		}
	})
}
