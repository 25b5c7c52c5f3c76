package objects

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestCanonicalize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"1e21", `1e21`, `1e+21`},
		{"1e-7", `1e-7`, `1e-7`},
		{"0.000001", `0.000001`, `0.000001`},
		{"minus zero", `-0`, `0`},
		{"minus zero float", `-0.0e3`, `0`},
		{"rounding", `333333333.33333329`, `333333333.3333333`},
		{"min subnormal", `5e-324`, `5e-324`},
		{"max double", `1.7976931348623157e308`, `1.7976931348623157e+308`},
		{"integer", `100`, `100`},
		{"exp int", `1E2`, `100`},
		{"big int", `12345678901234567890`, `12345678901234567000`},
		{"negative", `-1.5`, `-1.5`},
		{"1e20", `1e20`, `100000000000000000000`},
		{"whitespace", " { \"b\" : [ 1 , 2 ] ,\n\t\"a\" : null } ", `{"a":null,"b":[1,2]}`},
		{"literals", `[true,false,null]`, `[true,false,null]`},
		{"empty", `[{},[],""]`, `[{},[],""]`},
		{"nested sort", `{"z":{"y":1,"x":2},"a":[{"c":1,"b":2}]}`, `{"a":[{"b":2,"c":1}],"z":{"x":2,"y":1}}`},
		{
			"utf16 key order",
			`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{"escapes", `"\u0041\/\"\\\b\f\n\r\t\u0001\u001F\u007f"`, `"A/\"\\\b\f\n\r\t\u0001\u001f` + "\x7f" + `"`},
		{"no html escaping", `"<a>&\u2028\u2029"`, "\"<a>&\u2028\u2029\""},
		{"surrogate pair", `"\uD83D\uDE00"`, "\"\U0001F600\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tt.in))
			if err != nil {
				t.Fatalf("Canonicalize(%s): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Fatalf("Canonicalize(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			again, err := Canonicalize(got)
			if err != nil || string(again) != string(got) {
				t.Fatalf("not idempotent: %s -> %s (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalizeErrors(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ``},
		{"duplicate key", `{"a":1,"a":2}`},
		{"duplicate key after unescape", `{"a":1,"\u0061":2}`},
		{"invalid utf8", "\"\xff\""},
		{"lone high surrogate", `"\ud800"`},
		{"lone low surrogate", `"\udc00"`},
		{"bad pair", `"\ud800\u0041"`},
		{"overflow", `1e400`},
		{"trailing", `1 2`},
		{"trailing comma", `[1,]`},
		{"leading zero", `01`},
		{"bare dot", `1.`},
		{"plus", `+1`},
		{"nan", `NaN`},
		{"control char", "\"a\x01\""},
		{"bad escape", `"\x"`},
		{"unterminated", `{"a":1`},
		{"single quote", `'a'`},
		{"too deep", strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := Canonicalize([]byte(tt.in)); err == nil {
				t.Fatalf("Canonicalize(%q) = %s, want error", tt.in, got)
			}
		})
	}
}

func TestMarshalCanonical(t *testing.T) {
	type s struct {
		B string  `json:"b"`
		A float64 `json:"a"`
	}
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"struct", s{B: "<&>", A: 1e-7}, `{"a":1e-7,"b":"<&>"}`},
		{"map", map[string]any{"\u00f6": 1, "z": []int{3, 2}}, "{\"z\":[3,2],\"\u00f6\":1}"},
		{"raw", json.RawMessage(`{"b":1, "a":2}`), `{"a":2,"b":1}`},
		{"string", "x\u2028", "\"x\u2028\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MarshalCanonical(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := MarshalCanonical(make(chan int)); err == nil {
		t.Fatal("MarshalCanonical(chan) succeeded")
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[1e21,1e-7,-0,"\u00e9"]}`, `333333333.33333329`, `"\ud83d\ude00"`, `[]`, `{"a":{"a":{}}}`,
		`{"a":1,"a":2}`, "\"\xff\"", `  null `, `[1.5e300, -2E-300, 0.1]`, `"\u0000<>&"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Canonicalize(data)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("output is not valid json: %q", out)
		}
		again, err := Canonicalize(out)
		if err != nil {
			t.Fatalf("canonical output rejected: %q: %v", out, err)
		}
		if string(again) != string(out) {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
		var a, b any
		if err := json.Unmarshal(data, &a); err != nil {
			t.Fatalf("input accepted by Canonicalize but not encoding/json: %q: %v", data, err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("semantics changed: %q -> %q", data, out)
		}
	})
}
