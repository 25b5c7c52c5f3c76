package moderator

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestYAMLErrorPosition: a YAML syntax error is placed at the offending
// token (the bracket never closed, the stray bracket, the badly indented
// line, the tab, the quote never closed), not at the construct around it
// where yaml.v3 places it.
func TestYAMLErrorPosition(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string // the whole problem
	}{
		{"unclosed flow mapping", `name: w
roles:
  planner:
    frontmatter: {type: object
    goal: plan it
graph:
  $START:
    _: {role: planner, prompt: "Plan."}
`, `w.yaml:4:18: invalid YAML: did not find expected ',' or '}' (this '{' is never closed)`},
		{"unclosed flow mapping at the end", `name: w
roles:
  planner:
    frontmatter: {type: object
`, `w.yaml:4:18: invalid YAML: did not find expected ',' or '}' (this '{' is never closed)`},
		{"unclosed outer flow mapping", `name: w
roles:
  planner:
    frontmatter: {type: object, properties: {plan: {type: string}}
    goal: plan it
graph: {}
`, `w.yaml:4:18: invalid YAML: did not find expected ',' or '}' (this '{' is never closed)`},
		{"unclosed flow mapping on the first line", `{name: w
roles: {}
`, `w.yaml:1:1: invalid YAML: did not find expected ',' or '}' (this '{' is never closed)`},
		{"unclosed flow sequence", `name: w
roles:
  planner:
    frontmatter:
      type: object
      required: [plan, summary
      properties: {plan: {type: string}}
graph: {}
`, `w.yaml:6:17: invalid YAML: did not find expected ',' or ']' (this '[' is never closed)`},
		{"unclosed flow sequence over lines", `name: w
roles:
  planner:
    frontmatter:
      required: [plan,
        summary,
        goal
      type: object
`, `w.yaml:5:17: invalid YAML: did not find expected ',' or ']' (this '[' is never closed)`},
		{"braces in plain scalars and quotes are text", `name: w
roles:
  planner:
    goal: Do {{plan}} now, [or] not
    frontmatter: {type: object, description: "a } b ] c"
graph: {}
`, `w.yaml:5:18: invalid YAML: did not find expected ',' or '}' (this '{' is never closed)`},
		{"a block scalar's text is skipped", `name: w
roles:
  planner:
    goal: |
      Write { and [ freely
    frontmatter: [type, object
graph: {}
`, `w.yaml:6:18: invalid YAML: did not find expected ',' or ']' (this '[' is never closed)`},
		{"stray closing brace", `name: w
roles:
  planner:
    frontmatter: {type: object}
graph:
  $START:
    _: {role: planner, prompt: "Plan."}}
`, `w.yaml:7:40: invalid YAML: did not find expected key (this '}' closes nothing)`},
		{"indented between two levels", `name: w
roles:
  planner:
    frontmatter:
      type: object
     required: [plan]
graph: {}
`, `w.yaml:6:6: invalid YAML: did not find expected key (the indentation of this line matches no enclosing block)`},
		{"key among sequence entries", `name: w
roles:
  planner:
    frontmatter:
      required:
        - plan
        type: object
graph: {}
`, `w.yaml:7:9: invalid YAML: did not find expected '-' indicator (the indentation of this line matches no enclosing block)`},
		{"entry outdented from its sequence", `name: w
roles:
  planner:
    frontmatter:
      required:
        - plan
       - summary
graph: {}
`, `w.yaml:7:8: invalid YAML: did not find expected key (the indentation of this line matches no enclosing block)`},
		{"tab indentation", "name: w\nroles:\n  planner:\n\tfrontmatter: {type: object}\ngraph: {}\n",
			`w.yaml:4:1: invalid YAML: found character that cannot start any token (a tab: YAML indents with spaces only)`},
		{"tab after spaces", "name: w\nroles:\n  planner:\n    frontmatter:\n    \t type: object\ngraph: {}\n",
			`w.yaml:5:5: invalid YAML: found character that cannot start any token (a tab: YAML indents with spaces only)`},
		{"unterminated double quote", `name: w
roles:
  planner:
    goal: "plan \" it
    frontmatter: {type: object}
graph: {}
`, `w.yaml:4:11: invalid YAML: found unexpected end of stream (this quoted string is never closed)`},
		{"unterminated single quote", `name: w
roles:
  planner:
    goal: it's fine
    prompt: 'it''s
    frontmatter: {type: object}
graph: {}
`, `w.yaml:5:13: invalid YAML: found unexpected end of stream (this quoted string is never closed)`},
		{"mapping value on a value", `name: w
roles:
  planner: goal: x
graph: {}
`, `w.yaml:3: invalid YAML: mapping values are not allowed in this context`},
		{"empty flow entry", `name: w
roles:
  planner:
    frontmatter: {required: [,]}
graph: {}
`, `w.yaml:4: invalid YAML: did not find expected node content`},
		// Scanner errors that also say "did not find expected": yaml.v3
		// numbers their lines from 1 already.
		{"alias without a name", "name: w\nroles: {}\ngraph:\n  $START:\n    _: {role: planner}\n$END: *\nx: 1\n",
			`w.yaml:6: invalid YAML: did not find expected alphabetic or numeric character`},
		{"anchor without a name", "name: w\nroles: {}\ngraph: {}\nx: 1\ny: &\nz: 2\n",
			`w.yaml:5: invalid YAML: did not find expected alphabetic or numeric character`},
		{"bad directive", "%YAML 1.1\n%YAML x\n---\nname: w\n",
			`w.yaml:2: invalid YAML: did not find expected version number`},
		{"unclosed sequence at the end", "name: w\nroles: [\n", `w.yaml:2:8: invalid YAML: did not find expected node content (this '[' is never closed)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(nil, "w.yaml", []byte(tt.yaml))
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("Parse = %v, want a ValidationError", err)
			}
			if got := ve.Problems[0].String(); got != tt.want {
				t.Errorf("problem\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzLocateYAMLError: for any input yaml.v3 rejects, the located position
// is inside the file, and a position that comes with a note is on the
// character the note names.
func FuzzLocateYAMLError(f *testing.F) {
	for _, s := range []string{
		"a: {b: 1\n", "a: [b,\n  c\nd: 1\n", "a: {b: 1}}\n", "a:\n  b: 1\n c: 2\n", "a:\n\tb: 1\n",
		"a: \"b\n", "a: 'it''s\n", "a: |\n  {[\nb: [\n", "- a\nb: 1\n", "a: b: c\n", "{", "\"", "a:\r\n  - [\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc yaml.Node
		err := yaml.Unmarshal(data, &doc)
		if err == nil {
			return
		}
		line, msg := 0, strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLineRE().FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		gotLine, gotCol, note := locateYAMLError(data, line, msg)
		lines := strings.Split(string(data), "\n")
		if gotLine < 0 || gotLine > len(lines) || gotCol < 0 || (gotLine == 0 && gotCol != 0) {
			t.Fatalf("located %d:%d in %d lines (yaml.v3: line %d: %s)", gotLine, gotCol, len(lines), line, msg)
		}
		if gotCol == 0 {
			if note != "" {
				t.Fatalf("note %q without a column", note)
			}
			return
		}
		text := lines[gotLine-1]
		if gotCol > len(text) {
			t.Fatalf("column %d past line %d (%q)", gotCol, gotLine, text)
		}
		c := text[gotCol-1]
		var want string
		switch {
		case strings.HasPrefix(note, "this '") || strings.Contains(note, "quoted string"):
			want = "{[}]\"'"
		case strings.HasPrefix(note, "a tab"):
			want = "\t"
		case strings.HasPrefix(note, "the indentation"):
			if gotCol > 1 && text[gotCol-2] != ' ' {
				t.Fatalf("indentation note at %d:%d, after %q", gotLine, gotCol, text[:gotCol-1])
			}
			return
		default:
			t.Fatalf("unknown note %q", note)
		}
		if !strings.ContainsRune(want, rune(c)) {
			t.Fatalf("note %q at %d:%d, on %q", note, gotLine, gotCol, c)
		}
	})
}
