package agentkit

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// updateGolden rewrites golden files instead of comparing against them:
// go test ./agentkit -update
var updateGolden = flag.Bool("update", false, "rewrite golden files in testdata")

// checkGolden compares got with the golden file at path (or rewrites it
// with -update).
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func loadSchema(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return schema
}

func TestOutputFormatInstructionGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "format", "*.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 5 {
		t.Fatalf("found %d schemas in testdata/format, want at least 5", len(paths))
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".schema.json")
		t.Run(name, func(t *testing.T) {
			got := OutputFormatInstruction(loadSchema(t, path))
			checkGolden(t, strings.TrimSuffix(path, ".schema.json")+".golden.md", got)
		})
	}
}

// TestOutputFormatInstructionExamplesParse checks that every example block
// the instruction shows is itself a valid frontmatter that ExtractOutput
// accepts with all listed fields.
func TestOutputFormatInstructionExamplesParse(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "format", "*.schema.json"))
	for _, path := range paths {
		schema := loadSchema(t, path)
		text := OutputFormatInstruction(schema)
		blocks := exampleBlocks(text)
		if len(blocks) == 0 {
			t.Errorf("%s: no example block", path)
		}
		for _, block := range blocks {
			out, body, err := ExtractOutput(block, schema)
			if err != nil {
				t.Errorf("%s: example does not parse: %v\n%s", path, err, block)
				continue
			}
			if body != bodyPlaceholder {
				t.Errorf("%s: example body = %q", path, body)
			}
			if SchemaFields(schema) != nil && len(out) == 0 {
				t.Errorf("%s: example yields no fields:\n%s", path, block)
			}
		}
	}
}

// exampleBlocks returns the contents of the ``` fences in text.
func exampleBlocks(text string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			if in {
				blocks = append(blocks, strings.Join(cur, "\n"))
				cur = nil
			}
			in = !in
			continue
		}
		if in {
			cur = append(cur, line)
		}
	}
	return blocks
}

func TestOutputFormatInstructionLines(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string
		reject []string
	}{
		{"enum required", `{"required":["$status"],"properties":{"$status":{"enum":["a","b"]}}}`,
			[]string{"$status: a  # required | a | b"}, []string{"Choose ONE"}},
		{"boolean optional", `{"properties":{"ok":{"type":"boolean"}}}`,
			[]string{"ok: true  # true | false", "- `ok`\n"}, []string{"required"}},
		{"nullable integer", `{"properties":{"n":{"type":["integer","null"]}}}`,
			[]string{"n: <number>"}, nil},
		{"const", `{"properties":{"kind":{"const":"fixed value"}}}`,
			[]string{"kind: fixed value\n"}, nil},
		{"quoted const", `{"properties":{"v":{"const":"42"}}}`,
			[]string{`v: "42"`}, nil},
		{"array of strings", `{"required":["xs"],"properties":{"xs":{"type":"array","items":{"type":"string"}}}}`,
			[]string{"xs:  # required\n  - <string>\n"}, nil},
		{"object", `{"properties":{"o":{"type":"object","properties":{"k":{}}}}}`,
			[]string{"o: <object>", "An object with the fields `k`."}, nil},
		{"variants without discriminant flatten", `{"oneOf":[{"required":["a"],"properties":{"a":{"type":"string"}}},{"required":["a"],"properties":{"a":{"type":"string"},"b":{"type":"number"}}}]}`,
			[]string{"a: <string>  # required", "b: <number>\n"}, []string{"Choose ONE", "### When"}},
		{"variants with discriminant", `{"anyOf":[{"properties":{"kind":{"const":1}}},{"properties":{"kind":{"const":2}}}]}`,
			[]string{"Choose ONE", "### When `kind: 1`", "### When `kind: 2`", "listed for the variant you chose"}, nil},
		{"scope line last", `{"properties":{"a":{}}}`,
			[]string{"a: <value>", "Put only these fields", "Stay within your role"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var schema map[string]any
			if err := json.Unmarshal([]byte(tt.schema), &schema); err != nil {
				t.Fatal(err)
			}
			got := OutputFormatInstruction(schema)
			if !strings.HasPrefix(got, "## Deliverable Format\n") {
				t.Errorf("missing heading:\n%s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			for _, r := range tt.reject {
				if strings.Contains(got, r) {
					t.Errorf("unexpected %q in:\n%s", r, got)
				}
			}
			lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
			if !strings.HasPrefix(lines[len(lines)-1], "Stay within your role") {
				t.Errorf("last line is %q, want the scope line", lines[len(lines)-1])
			}
		})
	}
}

func FuzzOutputFormatInstruction(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "format", "*.schema.json"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(string(data))
		}
	}
	f.Add(`{"oneOf":[{"$ref":"#"},{"$ref":"#/oneOf/0"}]}`)
	f.Add(`{"properties":{"a":{"anyOf":[{"$ref":"#/properties/a"}]}}}`)
	f.Fuzz(func(t *testing.T, schemaJSON string) {
		var schema map[string]any
		if json.Unmarshal([]byte(schemaJSON), &schema) != nil {
			return
		}
		got := OutputFormatInstruction(schema)
		if !strings.HasPrefix(got, "## Deliverable Format\n") {
			t.Fatalf("missing heading:\n%s", got)
		}
		fields := SchemaFields(schema)
		seen := map[string]bool{}
		for _, f := range fields {
			if seen[f] {
				t.Fatalf("SchemaFields repeats %q", f)
			}
			seen[f] = true
		}
		out, _, err := ExtractOutput("---\na: 1\n$status: x\n---\n", schema)
		if err != nil {
			t.Fatal(err)
		}
		for k := range out {
			if len(fields) > 0 && !seen[k] {
				t.Fatalf("ExtractOutput kept %q, not a schema field", k)
			}
		}
	})
}
