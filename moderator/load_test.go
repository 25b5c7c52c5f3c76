package moderator

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// workflowsFS is the fixture directory the table tests load from.
func workflowsFS() fstest.MapFS {
	m := fstest.MapFS{}
	_ = filepath.WalkDir("testdata/workflows", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/workflows", p)
		m[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data}
		return nil
	})
	return m
}

// summary describes a loaded workflow for golden files.
func summary(w *Workflow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ok: %s (%s form)\n", w.Name, w.Form)
	for _, name := range w.RoleOrder {
		fmt.Fprintf(&b, "role %s: statuses %v, properties %v\n", name, w.Statuses(name), slices.Sorted(maps.Keys(topProperties(w.Schema(name), ""))))
	}
	for _, from := range w.NodeOrder {
		for i, e := range w.Graph[from] {
			fmt.Fprintf(&b, "edge %s: prompt %q", edgeLabel(w, e, i), e.Prompt)
			if e.Condition != "" {
				fmt.Fprintf(&b, " if %s", e.Condition)
			}
			if e.Location != "" {
				fmt.Fprintf(&b, " location %q", e.Location)
			}
			b.WriteString("\n")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(w.Conditions)) {
		fmt.Fprintf(&b, "condition %s: %s\n", name, w.Conditions[name].Expression)
	}
	return b.String()
}

// TestWorkflowsGolden loads every testdata/workflows/*.yaml and compares the
// summary (good files) or the validation report (bad files) with its
// .golden file. Refresh with go test -run TestWorkflowsGolden -update.
func TestWorkflowsGolden(t *testing.T) {
	fsys := workflowsFS()
	files, err := filepath.Glob("testdata/workflows/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			w, err := Load(fsys, name)
			var got string
			switch {
			case err != nil:
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("error is %T, want *ValidationError: %v", err, err)
				}
				got = "error:\n" + err.Error() + "\n"
			default:
				got = summary(w)
			}
			if strings.HasPrefix(name, "bad-") != (err != nil) {
				t.Errorf("Load(%s) error = %v; bad- fixtures must fail and others load", name, err)
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("Load(%s) mismatch\n--- got\n%s--- want\n%s", name, got, want)
			}
		})
	}
}

// TestLoadProblems pins the exact problems (with positions) of the bad
// fixtures.
func TestLoadProblems(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"bad-malformed.yaml", []string{
			"bad-malformed.yaml:4:11: invalid YAML: found unexpected end of stream (this quoted string is never closed)",
		}},
		{"bad-unknown-target.yaml", []string{
			`bad-unknown-target.yaml:9:16: unknown role "plumber"`,
		}},
		{"bad-unreachable.yaml", []string{
			`bad-unreachable.yaml:5:3: role "orphan" is not reachable from $START`,
		}},
		{"bad-status-keys.yaml", []string{
			`bad-status-keys.yaml:11:3: role "reviewer": missing status keys: rejected, blocked`,
			`bad-status-keys.yaml:11:3: role "reviewer": extra status keys: maybe`,
		}},
		{"bad-template-var.yaml", []string{
			`bad-template-var.yaml:12:33: edge $START._ -> planner: prompt uses variable "task", but $START edges have no variables`,
			`bad-template-var.yaml:14:36: edge planner.ready -> worker: prompt uses unknown variable "reason" (not a property of role "planner"'s output)`,
			`bad-template-var.yaml:14:75: edge planner.ready -> worker: location uses unknown variable "repo.path" (not a property of role "planner"'s output)`,
			`bad-template-var.yaml:15:40: edge planner.blocked -> $SUSPEND: invalid prompt template: line 1: Section plan has no closing tag`,
		}},
		{"bad-unknown-condition.yaml", []string{
			`bad-unknown-condition.yaml:4:11: condition "broken": invalid expression "steps[-1].output.approved = = false": unexpected token Operator("==") (1:30)`,
			`bad-unknown-condition.yaml:12:32: edge reviewer[0] -> $END: unknown condition "aproved"`,
		}},
		{"bad-include-escape.yaml", []string{
			`bad-include-escape.yaml:4:11: !include "../../x": ".." segments are not allowed: includes must stay inside the including file's directory`,
			`bad-include-escape.yaml:5:16: !include "/etc/passwd": absolute paths are not allowed`,
			`bad-include-escape.yaml:6:13: !include "parts/missing.md": file does not exist`,
		}},
		{"bad-include-cycle.yaml", []string{
			`parts/cycle-b.yaml:1:1: goal must be a string, got a mapping`,
			`parts/cycle-b.yaml:1:4: !include "cycle-a.yaml": include cycle (bad-include-cycle.yaml -> parts/cycle-a.yaml -> parts/cycle-b.yaml -> parts/cycle-a.yaml)`,
		}},
		{"bad-schema.yaml", []string{
			`bad-schema.yaml:5:7: role "planner": invalid frontmatter schema: at /type: got number, want a type name or an array of type names`,
			`bad-schema.yaml:8:7: role "worker": frontmatter must be an object schema with "type" or "oneOf"/"anyOf"`,
			`bad-schema.yaml:10:18: role "tester": frontmatter must describe an object, not "array"`,
		}},
		{"bad-reserved-role.yaml", []string{
			`bad-reserved-role.yaml:3:3: "$END" is reserved and cannot be a role name`,
			`bad-reserved-role.yaml:5:3: invalid role name "bad name": must match ^[A-Za-z_][A-Za-z0-9_-]*$`,
			`bad-reserved-role.yaml:5:3: role "bad name" has no outgoing edges in graph`,
			`bad-reserved-role.yaml:5:3: role "bad name" is not reachable from $START`,
		}},
		{"bad-end-edges.yaml", []string{
			`bad-end-edges.yaml:10:3: $END is a terminal node and cannot have outgoing edges`,
		}},
		{"bad-mixed-graph.yaml", []string{
			`bad-mixed-graph.yaml:6:3: graph mixes the status-map form (node: {status: edge}) and the transitions form (node: [edges]); use one`,
		}},
		{"bad-alias-bomb.yaml", []string{
			`bad-alias-bomb.yaml:2:11: document too large: more than 100000 nodes after expanding aliases and includes`,
		}},
		{"bad-many.yaml", []string{
			`bad-many.yaml:2:1: unknown top-level key "colour" (want name, description, roles, graph, conditions)`,
			`bad-many.yaml:5:11: goal must be a string, got a number`,
			`bad-many.yaml:7:5: role "planner" has both frontmatter and meta (meta is the old name of frontmatter)`,
			`bad-many.yaml:8:5: role "planner": unknown key "budget" (want description, goal, capabilities, procedure, output, frontmatter)`,
			`bad-many.yaml:15:3: $START must have exactly one edge, keyed "_"`,
			`bad-many.yaml:19:16: unknown role "wroker"`,
			`bad-many.yaml:19:32: edge planner._ -> wroker: prompt is empty`,
			`bad-many.yaml:20:3: role "worker": missing status keys: failed`,
			`bad-many.yaml:21:33: edge worker.done -> $END: prompt uses unknown variable "missing" (not a property of role "worker"'s output)`,
			`bad-many.yaml:21:48: edge from "worker": unknown key "colour" (want role, prompt, location)`,
		}},
	}
	fsys := workflowsFS()
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Load(fsys, tt.file)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Load(%s) = %v, want a *ValidationError", tt.file, err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// minimal returns a valid status-map workflow with extra YAML appended
// under the planner role's mapping or at top level.
const minimalYAML = `name: mini
roles:
  planner:
    frontmatter: {type: object, properties: {plan: {type: string}}}
graph:
  $START:
    _: {role: planner, prompt: "Plan."}
  planner:
    _: {role: $END, prompt: "Done {{plan}}."}
`

func TestParseShape(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		yaml    string
		fsys    fstest.MapFS
		wantErr string // substring of the error ("=..." for the whole error); "" = must load
	}{
		{name: "minimal", path: "mini.yaml", yaml: minimalYAML},
		{name: "no path skips name check", path: "", yaml: minimalYAML},
		{name: "yml extension", path: "dir/mini.yml", yaml: minimalYAML},
		{name: "index uses dir name", path: "mini/index.yaml", yaml: minimalYAML},
		{name: "missing keys", path: "m.yaml", yaml: "description: nothing\n",
			wantErr: "m.yaml:1:1: missing required key \"name\"\nm.yaml:1:1: missing required key \"roles\"\nm.yaml:1:1: missing required key \"graph\""},
		{name: "empty file", path: "m.yaml", yaml: "", wantErr: "m.yaml:1:1: empty workflow file"},
		{name: "not a mapping", path: "m.yaml", yaml: "- a\n", wantErr: "m.yaml:1:1: a workflow must be a mapping, got a sequence"},
		{name: "empty roles", path: "mini.yaml", yaml: strings.Replace(minimalYAML, "roles:\n  planner:\n    frontmatter: {type: object, properties: {plan: {type: string}}}\n", "roles: {}\n", 1),
			wantErr: "mini.yaml:2:8: roles must not be empty"},
		{name: "meta accepted", path: "mini.yaml", yaml: strings.Replace(minimalYAML, "frontmatter:", "meta:", 1)},
		{name: "duplicate key", path: "mini.yaml", yaml: minimalYAML + "name: again\n", wantErr: `mini.yaml:10:1: duplicate key "name"`},
		{name: "conditions in status form", path: "mini.yaml", yaml: minimalYAML + "conditions: {}\n",
			wantErr: "mini.yaml:10:1: conditions are only used by the transitions graph form"},
		{name: "condition key in status edge", path: "mini.yaml", yaml: strings.Replace(minimalYAML, `prompt: "Plan."`, `prompt: "Plan.", condition: x`, 1),
			wantErr: `mini.yaml:7:41: edge from "$START": condition is only used by the transitions graph form`},
		{name: "unknown tag", path: "mini.yaml", yaml: strings.Replace(minimalYAML, `"Plan."`, `!shout "Plan."`, 1),
			wantErr: `mini.yaml:7:32: unsupported YAML tag "!shout"`},
		{name: "include without fs", path: "mini.yaml", yaml: strings.Replace(minimalYAML, `"Plan."`, `!include p.md`, 1),
			wantErr: "=mini.yaml:7:32: !include \"p.md\": no file system to read includes from"},
		{name: "include text", path: "wf/mini.yaml", yaml: strings.Replace(minimalYAML, `"Plan."`, `!include p.md`, 1),
			fsys: fstest.MapFS{"wf/p.md": {Data: []byte("Plan it.")}}},
		{name: "include sibling dir is escape", path: "wf/mini.yaml", yaml: strings.Replace(minimalYAML, `"Plan."`, `!include ../p.md`, 1),
			fsys:    fstest.MapFS{"p.md": {Data: []byte("Plan it.")}},
			wantErr: `".." segments are not allowed`},
		{name: "include bad json", path: "mini.yaml", yaml: strings.Replace(minimalYAML, "{type: object, properties: {plan: {type: string}}}", "!include s.json", 1),
			fsys:    fstest.MapFS{"s.json": {Data: []byte(`{"type": `)}},
			wantErr: `mini.yaml:4:18: !include "s.json": invalid JSON: unexpected EOF`},
		{name: "include bad yaml", path: "mini.yaml", yaml: strings.Replace(minimalYAML, "{type: object, properties: {plan: {type: string}}}", "!include s.yaml", 1),
			fsys:    fstest.MapFS{"s.yaml": {Data: []byte("a: [\n")}},
			wantErr: `=mini.yaml:4:18: included file s.yaml: line 1: invalid YAML: did not find expected node content (this '[' is never closed)`},
		{name: "merge keys", path: "mini.yaml", yaml: `name: mini
x-base: &base {type: object}
roles:
  planner:
    frontmatter: {<<: *base, properties: {plan: {type: string}}}
graph:
  $START: {_: {role: planner, prompt: "Plan."}}
  planner: {_: {role: $END, prompt: "Done {{plan}}."}}
`, wantErr: `mini.yaml:2:1: unknown top-level key "x-base"`},
		{name: "transitions start without edges", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {type: object}}
graph:
  $START: []
  a: [{role: $END, prompt: "x"}]
`, wantErr: "t.yaml:5:3: $START has no edges"},
		{name: "status keyed start not _", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {type: object}}
graph:
  $START: {go: {role: a, prompt: "x"}}
  a: {_: {role: $END, prompt: "x"}}
`, wantErr: `t.yaml:5:3: $START must have exactly one edge, keyed "_"`},
		{name: "no start", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {type: object}}
graph:
  a: {_: {role: $END, prompt: "x"}}
`, wantErr: "t.yaml:3:3: role \"a\" is not reachable from $START\nt.yaml:4:1: graph has no $START node"},
		{name: "underscore in multi-exit", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {type: object, properties: {$status: {enum: [_, done]}}}}
graph:
  $START: {_: {role: a, prompt: "x"}}
  a: {_: {role: $END, prompt: "x"}, done: {role: $END, prompt: "y"}}
`, wantErr: `t.yaml:3:20: role "a": status "_" is only for single-exit roles`},
		{name: "oneOf variant without const", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {oneOf: [{properties: {$status: {const: x}}}, {properties: {y: {type: string}}}]}}
graph:
  $START: {_: {role: a, prompt: "x"}}
  a: {x: {role: $END, prompt: "x"}}
`, wantErr: `every oneOf/anyOf variant must fix $status with a const`},
		{name: "remote ref refused", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {type: object, properties: {x: {$ref: "https://example.com/s.json"}}}}
graph:
  $START: {_: {role: a, prompt: "x"}}
  a: {_: {role: $END, prompt: "x"}}
`, wantErr: `remote and file references are not allowed`},
		{name: "uwf_ref format", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {type: object, properties: {x: {type: string, format: uwf_ref}, y: {format: ocas_ref}}}}
graph:
  $START: {_: {role: a, prompt: "x"}}
  a: {_: {role: $END, prompt: "{{x}} {{y}}"}}
`},
		{name: "partials refused", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {type: object}}
graph:
  $START: {_: {role: a, prompt: "x{{> /etc/passwd}}"}}
  a: {_: {role: $END, prompt: "x"}}
`, wantErr: `partials ({{>name}}) are not supported`},
		{name: "section scope", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {type: object, properties: {items: {type: array, items: {properties: {n: {}}}}, o: {properties: {p: {}}}}}}
graph:
  $START: {_: {role: a, prompt: "x"}}
  a: {_: {role: $END, prompt: "{{#items}}{{n}}{{.}}{{/items}}{{#o}}{{p}}{{/o}}{{o.p}}{{^items}}none{{/items}}{{$status}}"}}
`},
		{name: "section scope leak", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {type: object, properties: {items: {type: array, items: {properties: {n: {}}}}}}}
graph:
  $START: {_: {role: a, prompt: "x"}}
  a: {_: {role: $END, prompt: "{{#items}}{{n}}{{/items}}{{n}}"}}
`, wantErr: `prompt uses unknown variable "n"`},
		{name: "custom delimiters", path: "t.yaml", yaml: `name: t
roles:
  a: {frontmatter: {type: object}}
graph:
  $START: {_: {role: a, prompt: "x"}}
  a: {_: {role: $END, prompt: "{{=<% %>=}}<% nope %>"}}
`, wantErr: `prompt uses unknown variable "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fsys = tt.fsys
			w, err := Parse(mapFSOrNil(fsys), tt.path, []byte(tt.yaml))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if w == nil || len(w.Roles) == 0 {
					t.Fatalf("Parse returned %+v", w)
				}
				return
			}
			if err == nil {
				t.Fatalf("Parse succeeded, want error containing %q", tt.wantErr)
			}
			if exact, ok := strings.CutPrefix(tt.wantErr, "="); ok {
				if err.Error() != exact {
					t.Errorf("error:\n%v\nwant exactly:\n%s", err, exact)
				}
				return
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tt.wantErr)
			}
		})
	}
}

// mapFSOrNil turns a nil MapFS into a nil fs.FS (not a typed nil).
func mapFSOrNil(m fstest.MapFS) fs.FS {
	if m == nil {
		return nil
	}
	return m
}
