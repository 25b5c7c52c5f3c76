package agentkit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		wantYAML  string
		wantBody  string
		wantFound bool
	}{
		{"plain", "---\na: 1\n---\nbody\n", "a: 1\n", "body\n", true},
		{"blank lines before body", "---\na: 1\n---\n\n\n  \nbody\nmore\n", "a: 1\n", "body\nmore\n", true},
		{"leading whitespace and BOM", "\ufeff \n\n---\na: 1\n---\nbody", "a: 1\n", "body", true},
		{"CRLF", "---\r\na: 1\r\n---\r\nbody\r\n", "a: 1\n", "body\r\n", true},
		{"dots close", "---\na: 1\n...\nbody", "a: 1\n", "body", true},
		{"trailing spaces on delimiters", "---  \na: 1\n--- \nbody", "a: 1\n", "body", true},
		{"no body", "---\na: 1\n---", "a: 1\n", "", true},
		{"empty block", "---\n---\nbody", "", "body", true},
		{"body keeps later rules", "---\na: 1\n---\nx\n---\ny\n", "a: 1\n", "x\n---\ny\n", true},
		{"yaml fence around block", "```yaml\n---\na: 1\n---\n```\n\nbody\n", "a: 1\n", "body\n", true},
		{"bare fence around block", "```\n---\na: 1\n---\n```\nbody", "a: 1\n", "body", true},
		{"markdown fence around all", "```markdown\n---\na: 1\n---\n\n# Title\n\n```go\nx := 1\n```\n\ndone\n```\n", "a: 1\n", "# Title\n\n```go\nx := 1\n```\n\ndone\n", true},
		{"markdown fence keeps balanced body", "```md\n---\na: 1\n---\nbody\n```go\nx\n```\n", "a: 1\n", "body\n```go\nx\n```\n", true},
		{"other fence language", "```go\n---\na: 1\n---\nbody", "", "", false},
		{"fence without delimiter", "```yaml\na: 1\n```\nbody", "", "", false},
		{"no opening", "a: 1\n---\nbody", "", "", false},
		{"prose first", "Here is my answer:\n---\na: 1\n---\n", "", "", false},
		{"unterminated", "---\na: 1\nbody\n", "", "", false},
		{"opening only", "---", "", "", false},
		{"four dashes", "----\na: 1\n----\n", "", "", false},
		{"empty", "", "", "", false},
		{"indented closing is content", "---\na: |\n  ---\n---\nbody", "a: |\n  ---\n", "body", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y, body, ok := SplitFrontmatter(tt.text)
			if ok != tt.wantFound || y != tt.wantYAML || body != tt.wantBody {
				t.Errorf("SplitFrontmatter(%q) = (%q, %q, %v), want (%q, %q, %v)", tt.text, y, body, ok, tt.wantYAML, tt.wantBody, tt.wantFound)
			}
		})
	}
}

func TestParseFrontmatterValues(t *testing.T) {
	text := `---
$status: ready
count: 3
big: 9223372036854775807
huge: 18446744073709551616
ratio: 0.5
inf: .inf
ok: true
none: null
tilde: ~
when: 2024-01-02
quoted: "007"
list: [1, two, {x: y}]
nested:
  deep:
    - a
    - b
1: numeric key
true: bool key
base: &b {k: v, o: base}
derived:
  <<: *b
  o: own
---
Body text.
`
	fields, body, err := ParseFrontmatter(text)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"$status": "ready",
		"count":   int64(3),
		"big":     int64(9223372036854775807),
		"huge":    float64(18446744073709551616),
		"ratio":   0.5,
		"inf":     ".inf",
		"ok":      true,
		"none":    nil,
		"tilde":   nil,
		"when":    "2024-01-02",
		"quoted":  "007",
		"list":    []any{int64(1), "two", map[string]any{"x": "y"}},
		"nested":  map[string]any{"deep": []any{"a", "b"}},
		"1":       "numeric key",
		"true":    "bool key",
		"base":    map[string]any{"k": "v", "o": "base"},
		"derived": map[string]any{"k": "v", "o": "own"},
	}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("fields:\n got %#v\nwant %#v", fields, want)
	}
	if body != "Body text.\n" {
		t.Errorf("body = %q", body)
	}
}

func TestParseFrontmatterEmpty(t *testing.T) {
	for _, text := range []string{"---\n---\nbody", "---\n# only a comment\n---\nbody", "---\n\n---\n"} {
		fields, _, err := ParseFrontmatter(text)
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if fields == nil || len(fields) != 0 {
			t.Errorf("%q: fields = %#v, want empty map", text, fields)
		}
	}
}

func TestParseFrontmatterErrors(t *testing.T) {
	bomb := "---\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := 0; i < 9; i++ {
		name := string(rune('b' + i))
		bomb += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	bomb += "---\n"
	tests := []struct {
		name     string
		text     string
		wantLine int
		wantIn   string
	}{
		{"missing", "Just prose.", 0, "no frontmatter"},
		{"unterminated", "---\na: 1\n", 0, "no frontmatter"},
		{"bad yaml", "---\na: 1\nb: 2\nc: d: e\n---\n", 3, "invalid YAML"},
		{"unclosed list", "---\na: 1\nb: [unclosed\nc: 2\n---\n", 0, "invalid YAML"},
		{"unknown anchor", "---\na: *nope\n---\n", 0, "unknown anchor"},
		{"bad indentation", "---\na: 1\n b: 2\n---\n", 2, "invalid YAML"},
		{"not a mapping", "---\n- a\n- b\n---\n", 1, "mapping"},
		{"scalar", "---\njust text\n---\n", 1, "mapping"},
		{"duplicate key", "---\na: 1\nb: 2\na: 3\n---\n", 3, `key "a"`},
		{"complex key", "---\n? [a, b]\n: c\n---\n", 1, "keys"},
		{"alias bomb", bomb, 0, "too many values"},
		{"too large", "---\na: " + strings.Repeat("x", MaxFrontmatterSize) + "\n---\n", 0, "larger than the limit"},
		{"bad merge", "---\n<<: 3\n---\n", 1, "merge key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseFrontmatter(tt.text)
			var fe *FrontmatterError
			if !errors.As(err, &fe) {
				t.Fatalf("error = %v, want *FrontmatterError", err)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not contain %q", err, tt.wantIn)
			}
			if tt.wantLine != 0 && fe.Line != tt.wantLine {
				t.Errorf("line = %d, want %d (%v)", fe.Line, tt.wantLine, err)
			}
		})
	}
}

func TestSchemaFields(t *testing.T) {
	tests := []struct {
		name   string
		schema map[string]any
		want   []string
	}{
		{"nil", nil, nil},
		{"flat sorted", map[string]any{"properties": map[string]any{"plan": map[string]any{}, "$status": map[string]any{}, "a": map[string]any{}}}, []string{"$status", "a", "plan"}},
		{"variants union", map[string]any{
			"properties": map[string]any{"common": map[string]any{}},
			"oneOf": []any{
				map[string]any{"properties": map[string]any{"$status": map[string]any{}, "plan": map[string]any{}}},
				map[string]any{"anyOf": []any{
					map[string]any{"properties": map[string]any{"$status": map[string]any{}, "reason": map[string]any{}}},
				}},
			},
			"allOf": []any{map[string]any{"properties": map[string]any{"extra": map[string]any{}}}},
		}, []string{"common", "extra", "$status", "plan", "reason"}},
		{"local ref", map[string]any{
			"$defs": map[string]any{"base": map[string]any{"properties": map[string]any{"x": map[string]any{}}}},
			"allOf": []any{map[string]any{"$ref": "#/$defs/base"}},
		}, []string{"x"}},
		{"ref cycle", map[string]any{"allOf": []any{map[string]any{"$ref": "#"}}, "properties": map[string]any{"y": map[string]any{}}}, []string{"y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SchemaFields(tt.schema); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SchemaFields = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExtractOutput(t *testing.T) {
	schema := map[string]any{
		"type":     "object",
		"required": []any{"$status"},
		"properties": map[string]any{
			"$status": map[string]any{"enum": []any{"ready", "blocked"}},
			"plan":    map[string]any{"type": "string"},
		},
	}
	tests := []struct {
		name     string
		text     string
		schema   map[string]any
		want     map[string]any
		wantBody string
		wantErr  bool
	}{
		{"keeps schema fields", "---\n$status: ready\nplan: do it\nnoise: 1\n---\n# Plan\n", schema, map[string]any{"$status": "ready", "plan": "do it"}, "# Plan\n", false},
		{"missing fields stay missing", "---\nnoise: 1\n---\n", schema, map[string]any{}, "", false},
		{"no properties keeps all", "---\na: 1\n---\n", map[string]any{"type": "object"}, map[string]any{"a": int64(1)}, "", false},
		{"nil schema keeps all", "---\na: 1\n---\n", nil, map[string]any{"a": int64(1)}, "", false},
		{"no frontmatter", "I did it.", schema, nil, "", true},
		{"bad yaml", "---\na: [\n---\n", schema, nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, body, err := ExtractOutput(tt.text, tt.schema)
			if tt.wantErr {
				var fe *FrontmatterError
				if !errors.As(err, &fe) {
					t.Fatalf("error = %v, want *FrontmatterError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) || body != tt.wantBody {
				t.Errorf("ExtractOutput = (%#v, %q), want (%#v, %q)", got, body, tt.want, tt.wantBody)
			}
		})
	}
}

func FuzzSplitFrontmatter(f *testing.F) {
	for _, s := range []string{"---\na: 1\n---\nbody", "```yaml\n---\na: 1\n---\n```\nbody", "```\n---\n---\n```", "---\r\n...\r\n", "\ufeff---\n", "```md\n---\nx\n---\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		y, body, ok := SplitFrontmatter(text)
		if !ok {
			if y != "" || body != "" {
				t.Fatalf("not found but returned %q, %q", y, body)
			}
			return
		}
		if len(y) > len(text) || len(body) > len(text) {
			t.Fatalf("parts longer than the input")
		}
	})
}

func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\na: 1\n---\nbody",
		"---\na: &x [1, 2]\nb: *x\nc: {<<: {d: 1}}\n---\n",
		"---\n- x\n---\n",
		"---\n? [a]\n: b\n---\n",
		"---\na: !!binary aGVsbG8=\nb: !!float 1e400\nc: 0x1F\n---\n",
		"---\na: [\n---\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fields, _, err := ParseFrontmatter(text)
		if err != nil {
			var fe *FrontmatterError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FrontmatterError", err)
			}
			return
		}
		if fields == nil {
			t.Fatal("nil fields without error")
		}
		checkJSONValue(t, fields)
	})
}

// checkJSONValue fails unless v is made of JSON-compatible values only.
func checkJSONValue(t *testing.T, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for _, item := range x {
			checkJSONValue(t, item)
		}
	case []any:
		for _, item := range x {
			checkJSONValue(t, item)
		}
	case string, bool, nil, int64, float64:
	default:
		t.Fatalf("value %#v of type %T is not JSON-compatible", v, v)
	}
}
