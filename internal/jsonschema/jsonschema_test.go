package jsonschema_test

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/jsonschema"
)

func compile(t *testing.T, schema string, cfg jsonschema.Config) (*jsonschema.Schema, error) {
	t.Helper()
	doc, err := jsonschema.Decode([]byte(schema))
	if err != nil {
		t.Fatalf("decode %s: %v", schema, err)
	}
	return jsonschema.Compile("https://example.invalid/s.json", doc, cfg)
}

func TestValidateViolations(t *testing.T) {
	even := func(v any) error {
		if s, ok := v.(string); ok && len(s)%2 != 0 {
			return errors.New("odd length")
		}
		return nil
	}
	tests := []struct {
		name, schema, instance string
		cfg                    jsonschema.Config
		want                   []string // nil: valid
	}{
		{"valid", `{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":1}`, jsonschema.Config{}, nil},
		{"big integers stay exact", `{"const":12345678901234567890}`, `12345678901234567891`, jsonschema.Config{},
			[]string{"at /: value must be 12345678901234567890"}},
		{"escaped pointer", `{"properties":{"a/b~c":{"type":"string"}}}`, `{"a/b~c":1}`, jsonschema.Config{},
			[]string{"at /a~1b~0c: got number, want string"}},
		{"every leaf", `{"required":["x","y"],"properties":{"n":{"minimum":3}}}`, `{"n":1}`, jsonschema.Config{},
			[]string{"at /: missing properties 'x', 'y'", "at /n: minimum: got 1, want 3"}},
		{"format asserted", `{"format":"even"}`, `"abc"`, jsonschema.Config{AssertFormat: true, Formats: map[string]func(any) error{"even": even}},
			[]string{"at /: 'abc' is not valid even: odd length"}},
		{"format annotation only", `{"format":"even"}`, `"abc"`, jsonschema.Config{Formats: map[string]func(any) error{"even": even}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := compile(t, tt.schema, tt.cfg)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			inst, err := jsonschema.Decode([]byte(tt.instance))
			if err != nil {
				t.Fatal(err)
			}
			err = s.Validate(inst)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate = nil, want violations")
			}
			if got := jsonschema.Violations(err); !slices.Equal(got, tt.want) {
				t.Errorf("Violations = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	refuse := jsonschema.Config{Refuse: func(url string) error { return errors.New("no loading " + url) }}
	tests := []struct {
		name, schema string
		cfg          jsonschema.Config
		wantViols    []string // from SchemaViolations; nil: not a meta-schema error
		wantErr      string   // substring of the error
	}{
		{"bad type", `{"type":5}`, jsonschema.Config{}, []string{"at /type: got number, want a type name or an array of type names"}, "type"},
		{"external reference refused", `{"$ref":"https://elsewhere.invalid/x.json"}`, refuse, nil, "no loading https://elsewhere.invalid/x.json"},
		{"external reference, default refusal", `{"$ref":"https://elsewhere.invalid/x.json"}`, jsonschema.Config{}, nil, "external schema documents are not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compile(t, tt.schema, tt.cfg)
			if err == nil {
				t.Fatal("Compile = nil error")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not mention %q", err, tt.wantErr)
			}
			got, ok := jsonschema.SchemaViolations(err)
			if ok != (tt.wantViols != nil) || !slices.Equal(got, tt.wantViols) {
				t.Errorf("SchemaViolations = %q, %v; want %q", got, ok, tt.wantViols)
			}
		})
	}
}

func TestPointer(t *testing.T) {
	for _, tt := range []struct {
		tokens []string
		want   string
	}{
		{nil, "/"},
		{[]string{"a", "0"}, "/a/0"},
		{[]string{"a/b", "~c"}, "/a~1b/~0c"},
	} {
		if got := jsonschema.Pointer(tt.tokens); got != tt.want {
			t.Errorf("Pointer(%q) = %q, want %q", tt.tokens, got, tt.want)
		}
	}
}

// TestDeepInstance validates an instance nested 9,999 levels deep under a
// recursive schema: its cost grows with the depth, not with its square
// (each level once held a copy of the whole path: ~1 GB and seconds), and
// the violation at the bottom is reported at its full pointer.
func TestDeepInstance(t *testing.T) {
	const depth = 9999
	s, err := compile(t, `{"type":"array","items":{"$ref":"#"}}`, jsonschema.Config{})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.Decode([]byte(strings.Repeat("[", depth) + `"leaf"` + strings.Repeat("]", depth)))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = s.Validate(inst)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("validating %d levels allocated %d MB, want it to grow with the depth (a few MB)", depth, alloc>>20)
	}
	got := jsonschema.Violations(err)
	want := "at " + strings.Repeat("/0", depth) + ": got string, want array"
	if len(got) != 1 || got[0] != want {
		t.Errorf("Violations = %d line(s), first %.60q…, want one at the leaf's pointer", len(got), got)
	}
}

// TestHugeBounds: a length or count bound beyond any int is beyond any
// value, not wrapped around to a small or negative one.
func TestHugeBounds(t *testing.T) {
	for _, tt := range []struct {
		schema, instance string
		valid            bool
	}{
		{`{"maxLength":1e19}`, `"a"`, true},
		{`{"maxLength":18446744073709551616}`, `"a"`, true},
		{`{"minLength":9223372036854775808}`, `"a"`, false},
		{`{"maxItems":1e30}`, `[1,2,3]`, true},
		{`{"minProperties":1e30}`, `{"a":1}`, false},
	} {
		s, err := compile(t, tt.schema, jsonschema.Config{})
		if err != nil {
			t.Fatalf("%s: %v", tt.schema, err)
		}
		inst, err := jsonschema.Decode([]byte(tt.instance))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(inst); (err == nil) != tt.valid {
			t.Errorf("%s on %s: Validate = %v, want valid %v", tt.schema, tt.instance, err, tt.valid)
		}
	}
}
