package moderator

import (
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// v1Base is a small valid version 1 workflow; cases change it with
// strings.Replace.
const v1Base = `version: 1
name: v
roles:
  planner:
    frontmatter:
      type: object
      properties:
        $status: {const: ready}
        plan: {type: string}
      required: [$status, plan]
graph:
  $START:
    new: {role: planner, prompt: "Plan."}
  planner:
    ready: {role: $END, prompt: "Planned {{ plan }}."}
`

func TestDialectLoad(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		yaml    string
		version int
		// wantErr lists substrings of the error, in order; none means valid.
		wantErr []string
		notes   []string
	}{
		{name: "version 1", yaml: v1Base, version: 1},
		{name: "legacy unchanged", yaml: strings.Replace(strings.Replace(v1Base, "version: 1\n", "", 1), "new:", "_:", 1), version: 0},
		{name: "legacy may add a resume edge", yaml: strings.Replace(strings.Replace(v1Base, "version: 1\n", "", 1), "    new:", "    resume: {role: planner, prompt: \"Again.\"}\n    _:", 1), version: 0},
		{name: "legacy refuses other start keys", yaml: strings.Replace(strings.Replace(v1Base, "version: 1\n", "", 1), "    new:", "    again: {role: planner, prompt: \"Again.\"}\n    _:", 1),
			wantErr: []string{`$START must have exactly one edge, keyed "_"`}},
		{name: "version 2 refused at its line", yaml: strings.Replace(v1Base, "version: 1", "version: 2", 1),
			wantErr: []string{"v.yaml:1:10: unsupported workflow version 2"}},
		{name: "string version refused", yaml: strings.Replace(v1Base, "version: 1", `version: "1"`, 1),
			wantErr: []string{`v.yaml:1:10: unsupported workflow version "1" (a string)`}},
		{name: "float version refused", yaml: strings.Replace(v1Base, "version: 1", "version: 1.5", 1),
			wantErr: []string{"v.yaml:1:10: unsupported workflow version 1.5"}},
		{name: "legacy keeps its single _ edge", yaml: strings.Replace(strings.Replace(v1Base, "version: 1\n", "", 1), "new:", "_: {role: planner, prompt: x}\n    new:", 1),
			wantErr: []string{`$START must have exactly one edge, keyed "_"`}},
		{name: "v1 needs a new edge", yaml: strings.Replace(v1Base, "new:", "resume:", 1),
			wantErr: []string{`v.yaml:12:3: $START has no "new" edge`}},
		{name: "v1 start keys", yaml: strings.Replace(v1Base, "new:", "_:", 1),
			wantErr: []string{`v.yaml:12:3: $START has no "new" edge`, `v.yaml:13:5: $START edges are keyed "new"`}},
		{name: "v1 x- keys hold anchors", yaml: v1Base + "x-shared: &s {a: 1}\n", version: 1},
		{name: "legacy refuses x- keys", yaml: strings.Replace(strings.Replace(v1Base, "version: 1\n", "", 1), "new:", "_:", 1) + "x-shared: 1\n",
			wantErr: []string{`unknown top-level key "x-shared"`}},
		{name: "v1 other unknown key", yaml: v1Base + "extra: 1\n",
			wantErr: []string{`v.yaml:16:1: unknown top-level key "extra" (want version, name, description, roles, graph, or x-… for anchors)`}},
		{name: "v1 $SUSPEND target", yaml: strings.Replace(v1Base, "role: $END", "role: $SUSPEND", 1),
			wantErr: []string{"v.yaml:15:19: edge planner.ready -> $SUSPEND: $SUSPEND is not an edge target in version 1"}},
		{name: "v1 _body in a schema", yaml: strings.Replace(v1Base, "plan: {type: string}", "plan: {type: string}\n        _body: {type: string}", 1),
			wantErr: []string{`role "planner": frontmatter must not define "_body"`}},
		{name: "v1 role without $status", yaml: strings.Replace(v1Base, "$status: {const: ready}\n", "", 1),
			wantErr: []string{`role "planner": version 1 frontmatter must declare $status`}},
		{name: "v1 reserved $SUSPEND status", yaml: strings.Replace(strings.Replace(v1Base, "{const: ready}", "{enum: [ready, $SUSPEND]}", 1), "    ready: {role: $END", "    $SUSPEND: {role: $END, prompt: x}\n    ready: {role: $END", 1),
			wantErr: []string{`$status "$SUSPEND" is reserved`}},
		{name: "v1 conditions", yaml: v1Base + "conditions: {}\n",
			wantErr: []string{"conditions are not part of version 1"}},
		{name: "v1 unknown Liquid variable", yaml: strings.Replace(v1Base, "{{ plan }}", "{{ plans | upcase }}", 1),
			wantErr: []string{`v.yaml:15:33: edge planner.ready -> $END: prompt uses unknown variable "plans"`}},
		{name: "v1 start edge variable: a note, it renders empty", yaml: strings.Replace(v1Base, `"Plan."`, `"Plan {{ x }}."`, 1), version: 1,
			notes: []string{`v.yaml:13:34: edge $START.new -> planner: prompt uses variable "x", but $START edges have no variables: it renders empty`}},
		{name: "v1 start edge variable is still parsed", yaml: strings.Replace(v1Base, `"Plan."`, `"Plan {{ x | }}."`, 1),
			wantErr: []string{`edge $START.new -> planner: invalid prompt template`}},
		{name: "v1 Liquid syntax", yaml: strings.Replace(v1Base, "{{ plan }}", "{% if plan %}", 1),
			wantErr: []string{"v.yaml:15:33: edge planner.ready -> $END: invalid prompt template"}},
		{name: "v1 include refused", yaml: strings.Replace(v1Base, "{{ plan }}", "{% include 'x' %}", 1),
			wantErr: []string{"include is not supported"}},
		{name: "v1 huge literal range refused", yaml: strings.Replace(v1Base, "{{ plan }}", "{% for i in (1..999999999) %}{% endfor %}", 1),
			wantErr: []string{"has more than 10000 values"}},
		{name: "v1 huge range in an output refused", yaml: strings.Replace(v1Base, "{{ plan }}", "{{ (1..10000000) | reverse | first }}", 1),
			wantErr: []string{"edge planner.ready -> $END", "range (1..10000000) has more than 10000 values"}},
		{name: "v1 integer literal beyond 64 bits refused", yaml: strings.Replace(v1Base, "{{ plan }}", "{{ 9227000000000000000 }}", 1),
			wantErr: []string{"edge planner.ready -> $END", "value out of range"}},
		{name: "no version but a new edge: read as version 1", yaml: strings.Replace(v1Base, "version: 1\n", "", 1), version: 1,
			notes: []string{`v.yaml:11:3: no version key, but $START has a "new" edge and no "_" edge: read as version 1 (add ` + "`version: 1`" + ` to say so)`}},
		{name: "v1 name differs from the file: a note", path: "planning.workflow.yaml", yaml: v1Base, version: 1,
			notes: []string{`planning.workflow.yaml:2:7: file "planning.workflow.yaml" implies name "planning.workflow"; the declared name "v" is used`}},
		{name: "legacy name differs from the file: a note", path: "planning.yaml", yaml: strings.Replace(strings.Replace(v1Base, "version: 1\n", "", 1), "new:", "_:", 1), version: 0,
			notes: []string{`planning.yaml:1:7: file "planning.yaml" implies name "planning"; the declared name "v" is used`}},
		{name: "legacy index name differs from its folder: a note", path: "other/index.yaml", yaml: strings.Replace(strings.Replace(v1Base, "version: 1\n", "", 1), "new:", "_:", 1), version: 0,
			notes: []string{`other/index.yaml:1:7: file "other/index.yaml" implies name "other"; the declared name "v" is used`}},
		{name: "v1 transitions form refused", yaml: "version: 1\nname: v\nroles: {a: {frontmatter: {type: object, properties: {$status: {const: x}}}}}\ngraph:\n  $START: [{role: a, prompt: go}]\n  a: [{role: $END, prompt: end}]\n",
			wantErr: []string{"the transitions graph form (node: [edges]) is not part of version 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = "v.yaml"
			}
			w, err := Parse(nil, path, []byte(tt.yaml))
			if len(tt.wantErr) > 0 {
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("got %v, want a ValidationError with %q", err, tt.wantErr)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error lacks %q:\n%v", want, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if w.Version != tt.version {
				t.Errorf("Version = %d, want %d", w.Version, tt.version)
			}
			var notes []string
			for _, n := range w.Notes {
				notes = append(notes, n.String())
			}
			if strings.Join(notes, "\n") != strings.Join(tt.notes, "\n") {
				t.Errorf("notes = %q, want %q", notes, tt.notes)
			}
		})
	}
}

// TestDialectDocument: a version 1 workflow keeps its dialect through the
// stored document, and the older dialect's document has no version key
// (so the aliases of stored workflows do not change).
func TestDialectDocument(t *testing.T) {
	for _, tt := range []struct {
		file        string
		wantVersion any
	}{
		{"testdata/v1/review.workflow.yaml", float64(1)},
		{"testdata/workflows/linear.yaml", nil},
	} {
		data, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		w, err := Parse(nil, "", data)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		b, err := json.Marshal(w.Document())
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if doc["version"] != tt.wantVersion {
			t.Errorf("%s: document version = %v, want %v", tt.file, doc["version"], tt.wantVersion)
		}
		back, err := FromDocument(doc)
		if err != nil {
			t.Fatalf("%s: FromDocument: %v", tt.file, err)
		}
		if back.Version != w.Version {
			t.Errorf("%s: version %d after the round trip, want %d", tt.file, back.Version, w.Version)
		}
	}
}

func TestDialectRoute(t *testing.T) {
	data, err := os.ReadFile("testdata/v1/review.workflow.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Parse(nil, "testdata/v1/review.workflow.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if !w.UsesBody() {
		t.Error("UsesBody = false for templates that read _body")
	}
	dev := map[string]any{"$status": "review_needed", "branch": "fix/42-auth", "files": []any{"a.go", "b.go"}}
	tests := []struct {
		name  string
		steps []StepView
		want  Decision
	}{
		{"start takes new", nil, Decision{Kind: Next, From: Start, Status: StartNew, Role: "developer", Prompt: "Start the change."}},
		{"liquid with _body and location", []StepView{{Role: "developer", Output: dev, Body: "<b>done</b> & tested"}},
			Decision{Kind: Next, From: "developer", Status: "review_needed", Role: "reviewer",
				Prompt: "Review fix/42-auth (a.go, b.go): <b>done</b> & tested", Location: "42-auth"}},
		{"a yield suspends with its reason", []StepView{{Role: "reviewer", Output: map[string]any{"$status": SuspendStatus, "reason": "Which branch?"}}},
			Decision{Kind: Pause, From: "reviewer", Status: SuspendStatus, Prompt: "Which branch?"}},
		{"a yield without reason still suspends", []StepView{{Role: "developer", Output: map[string]any{"$status": SuspendStatus}}},
			Decision{Kind: Pause, From: "developer", Status: SuspendStatus, Prompt: `role "developer" suspended the thread without a reason`}},
		{"approved ends", []StepView{{Role: "reviewer", Output: map[string]any{"$status": "approved"}}},
			Decision{Kind: Finish, From: "reviewer", Status: "approved", Role: End, Prompt: "Approved."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := w.Route(RouteContext{Steps: tt.steps})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Route = %+v\nwant    %+v", got, tt.want)
			}
		})
	}

	d, err := w.RouteResume(RouteContext{Steps: []StepView{{Role: "reviewer", Output: map[string]any{"$status": "approved"}, Body: "all good"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Decision{Kind: Next, From: Start, Status: StartResume, Role: "developer", Prompt: "Pick up where the last run ended: all good"}); d != want {
		t.Errorf("RouteResume = %+v, want %+v", d, want)
	}

	// The older dialect: a $SUSPEND status is an ordinary (unknown) status,
	// and resuming needs a resume edge.
	legacy, err := Parse(nil, "", []byte(strings.Replace(strings.Replace(v1Base, "version: 1\n", "", 1), "new:", "_:", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := legacy.Route(RouteContext{Steps: []StepView{{Role: "planner", Output: map[string]any{"$status": SuspendStatus, "reason": "x"}}}}); err == nil {
		t.Error("the older dialect treated $SUSPEND as a yield")
	}
	if legacy.CanResumeEnded() {
		t.Error("CanResumeEnded without a resume edge")
	}
	if _, err := legacy.RouteResume(RouteContext{}); err == nil || !strings.Contains(err.Error(), "has no $START.resume edge") {
		t.Errorf("RouteResume without a resume edge: %v", err)
	}
}

// mustacheEraYAML is a file as upstream wrote them between naming the $START
// edges new/resume and adopting Liquid and version: no version key,
// Mustache prompts and a $SUSPEND edge target.
const mustacheEraYAML = `name: triage
roles:
  sorter:
    frontmatter:
      oneOf:
        - properties: {$status: {const: sorted}, queue: {type: string}}
          required: [$status, queue]
        - properties: {$status: {const: unclear}, ask: {type: string}}
          required: [$status, ask]
  fixer:
    frontmatter: {type: object, properties: {$status: {const: fixed}}, required: [$status]}
graph:
  $START:
    new: {role: sorter, prompt: "Sort ticket #{{{ticket}}}."}
    resume: {role: sorter, prompt: "Sort it again."}
  sorter:
    sorted: {role: fixer, prompt: "Fix it in {{{queue}}} <now>."}
    unclear: {role: $SUSPEND, prompt: "The sorter asks: {{{ask}}}"}
  fixer:
    fixed: {role: $END, prompt: "Fixed."}
`

// TestDialectMustacheEra: a file of upstream's Mustache era loads in the
// older dialect, its "new" edge read as "_", and routes as such.
func TestDialectMustacheEra(t *testing.T) {
	tests := []struct {
		name, yaml string
		version    int
		notes      []string
	}{
		{"triple mustache and a $SUSPEND target", mustacheEraYAML, DialectLegacy, []string{
			`triage.yaml:13:3: no version key and $START has a "new" edge, but the file writes Mustache's {{{…}}}: read in the older dialect, with "new" in place of "_"`,
			`triage.yaml:14:33: edge $START.new -> sorter: prompt uses variable "ticket", but $START edges have no variables: it renders empty`,
		}},
		{"a $SUSPEND target alone", strings.NewReplacer("#{{{ticket}}}", "", "{{{queue}}}", "{{queue}}", "{{{ask}}}", "{{ask}}").Replace(mustacheEraYAML), DialectLegacy, []string{
			`triage.yaml:13:3: no version key and $START has a "new" edge, but the file has an edge to $SUSPEND: read in the older dialect, with "new" in place of "_"`,
		}},
		{"a section tag", strings.NewReplacer("#{{{ticket}}}", "", "{{{queue}}}", "{{#queue}}{{queue}}{{/queue}}", "{{{ask}}}", "{{ask}}", "{role: $SUSPEND, prompt:", "{role: sorter, prompt:").Replace(mustacheEraYAML), DialectLegacy, []string{
			`triage.yaml:13:3: no version key and $START has a "new" edge, but the file writes Mustache's {{#…}}: read in the older dialect, with "new" in place of "_"`,
		}},
		{"neither: version 1", strings.NewReplacer("#{{{ticket}}}", "", "{{{queue}}}", "{{ queue }}", "{{{ask}}}", "{{ ask }}", "{role: $SUSPEND, prompt:", "{role: sorter, prompt:").Replace(mustacheEraYAML), DialectV1, []string{
			`triage.yaml:13:3: no version key, but $START has a "new" edge and no "_" edge: read as version 1 (add ` + "`version: 1`" + ` to say so)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Parse(nil, "triage.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if w.Version != tt.version {
				t.Errorf("Version = %d, want %d", w.Version, tt.version)
			}
			var notes []string
			for _, n := range w.Notes {
				notes = append(notes, n.String())
			}
			if strings.Join(notes, "\n") != strings.Join(tt.notes, "\n") {
				t.Errorf("notes = %q\nwant    %q", notes, tt.notes)
			}
		})
	}

	w, err := Parse(nil, "triage.yaml", []byte(mustacheEraYAML))
	if err != nil {
		t.Fatal(err)
	}
	var starts []string
	for _, e := range w.Graph[Start] {
		starts = append(starts, e.Status)
	}
	if got := strings.Join(starts, " "); got != "new resume" {
		t.Errorf("$START edges = %q, want %q", got, "new resume")
	}
	routes := []struct {
		name  string
		steps []StepView
		want  Decision
	}{
		{"a fresh thread takes the new edge", nil, Decision{Kind: Next, From: Start, Status: StartNew, Role: "sorter", Prompt: "Sort ticket #."}},
		{"Mustache, unescaped", []StepView{{Role: "sorter", Output: map[string]any{"$status": "sorted", "queue": "infra"}}},
			Decision{Kind: Next, From: "sorter", Status: "sorted", Role: "fixer", Prompt: "Fix it in infra <now>."}},
		{"the $SUSPEND edge pauses", []StepView{{Role: "sorter", Output: map[string]any{"$status": "unclear", "ask": "which host?"}}},
			Decision{Kind: Pause, From: "sorter", Status: "unclear", Prompt: "The sorter asks: which host?"}},
	}
	for _, tt := range routes {
		got, err := w.Route(RouteContext{Steps: tt.steps})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: Route = %+v\nwant    %+v", tt.name, got, tt.want)
		}
	}
	if !w.CanResumeEnded() {
		t.Error("CanResumeEnded = false with a resume edge")
	}

	// The stored document keeps the file's keys and templates: it loads
	// the same way again.
	again, err := FromDocument(w.Document())
	if err != nil {
		t.Fatal(err)
	}
	if again.Version != DialectLegacy || len(again.Graph[Start]) != 2 || again.Graph[Start][0].Status != StartNew {
		t.Errorf("document reloads as version %d with $START %+v", again.Version, again.Graph[Start])
	}
	if d, err := again.Route(RouteContext{}); err != nil || d.Role != "sorter" {
		t.Errorf("reloaded document routes a fresh thread to %+v, %v", d, err)
	}
}

// TestDialectStartVariables: a version 1 $START edge that names a variable
// loads (with a note) and routes with the variable rendered empty, on the
// new and the resume edge alike.
func TestDialectStartVariables(t *testing.T) {
	src := strings.Replace(v1Base, `new: {role: planner, prompt: "Plan."}`,
		`new: {role: planner, prompt: "Plan ticket #{{ ticket }} in {{ repo | upcase }}."}`+"\n"+
			`    resume: {role: planner, prompt: "Again for {{ ticket }}: {{ _body }}"}`, 1)
	w, err := Parse(nil, "v.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Notes) != 3 {
		t.Errorf("notes = %v, want one per variable of each $START edge", w.Notes)
	}
	d, err := w.Route(RouteContext{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Plan ticket # in ."; d.Prompt != want {
		t.Errorf("Route prompt = %q, want %q", d.Prompt, want)
	}
	d, err = w.RouteResume(RouteContext{Steps: []StepView{{Role: "planner", Output: map[string]any{"$status": "ready", "plan": "p"}, Body: "planned"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Again for : planned"; d.Prompt != want {
		t.Errorf("RouteResume prompt = %q, want %q", d.Prompt, want)
	}
	if _, err := FromDocument(w.Document()); err != nil {
		t.Errorf("the stored document does not load again: %v", err)
	}
}

// TestLiquidBounds: hostile templates fail with a clear error instead of
// looping or allocating without limit. The budget's clock stands still, so
// the iteration and size bounds stop them whatever the machine's load (the
// deadline has its own case in TestLiquidRanges).
func TestLiquidBounds(t *testing.T) {
	data := map[string]any{"n": 1_000_000, "s": strings.Repeat("a", 1000), "list": make([]any, 5000)}
	tests := []struct {
		name, tpl, want string
	}{
		{"nested ranges", "{% for i in (1..n) %}{% for j in (1..n) %}{% endfor %}{% endfor %}", "ran too long"},
		{"range from data", "{% for i in (1..n) %}x{% endfor %}", "ran too long"},
		{"self-appending assign", "{% assign t = s %}{% for i in (1..40) %}{% assign t = t | append: t %}{% endfor %}", "more than 1048576 bytes"},
		{"self-doubling capture", "{% assign t = s %}{% for i in (1..40) %}{% capture t %}{{ t }}{{ t }}{% endcapture %}{% endfor %}", "more than 1048576 bytes"},
		{"quadratic replace", "{{ s | replace: 'a', s | replace: 'a', s }}", "more than 1048576 bytes"},
		{"huge join", "{{ list | join: s }}{{ list | join: s }}", "more than 1048576 bytes"},
		{"loop over data output", "{% for x in list %}{% for y in list %}{{ s }}{% endfor %}{% endfor %}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := parseLiquid(tt.tpl)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			frozen := time.Unix(1_700_000_000, 0)
			out, err := renderLiquidBudget(root, data, "", false, newLiquidBudgetClock(func() time.Time { return frozen }))
			if err == nil {
				t.Fatalf("rendered %d bytes without an error", len(out))
			}
			if tt.want != "" && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
		})
	}
}

// TestLiquidRanges: a range (a..b) is bounded wherever it appears, not only
// in loops. A literal range of more than liquidMaxIterations values is
// refused when the template loads; one with computed bounds fails when a
// filter would make it an array. Either way fast and with little memory;
// small ranges still work as in Liquid.
func TestLiquidRanges(t *testing.T) {
	data := map[string]any{"n": 10_000_000, "big": 1_000_000_000, "s": strings.Repeat("ab", 1<<18), "cfg": map[string]any{"max": 1 << 40}}
	tests := []struct {
		name, tpl string
		loadErr   string // the parse error, or "" when the template loads
		want      string // the render error, or the output when wantOut
		wantOut   bool
		// clockTicks, when set, times the rendering by a clock that moves
		// liquidMaxTime/clockTicks at each read, so that the deadline
		// passes after that many loop iterations however fast the machine.
		// Otherwise the clock stands still: the count and size bounds, not
		// the machine's load, decide which error a case gets.
		clockTicks int
	}{
		{name: "object reverse first", tpl: "{{ (1..10000000) | reverse | first }}", loadErr: "range (1..10000000) has more than 10000 values"},
		{name: "assign reverse", tpl: "{% assign a = (1..10000000) | reverse %}", loadErr: "has more than 10000 values"},
		{name: "billion range in output", tpl: "{{ (1..1000000000) | join: ',' }}", loadErr: "has more than 10000 values"},
		{name: "if condition", tpl: "{% if (1..1000000000) contains 3 %}x{% endif %}", loadErr: "has more than 10000 values"},
		{name: "elsif condition", tpl: "{% if s %}{% elsif (0..100000) %}x{% endif %}", loadErr: "has more than 10000 values"},
		{name: "unless condition", tpl: "{% unless (0..100000) == s %}x{% endunless %}", loadErr: "has more than 10000 values"},
		{name: "case and when", tpl: "{% case (1..99999) %}{% when 1 %}x{% endcase %}", loadErr: "has more than 10000 values"},
		{name: "capture body", tpl: "{% capture c %}{{ (1..99999) | sort | last }}{% endcapture %}", loadErr: "has more than 10000 values"},
		{name: "filter argument", tpl: "{{ s | split: '' | concat: (1..99999) }}", loadErr: "has more than 10000 values"},
		{name: "overflowing literal bounds", tpl: "{{ (-9223372036854775808..9223372036854775807) | first }}", loadErr: "has more than 10000 values"},
		{name: "integer literal beyond 64 bits", tpl: "{{ (1..9227000000000000000) | first }}", loadErr: "invalid template: strconv.ParseInt"},
		{name: "commented out: not rendered", tpl: "{% comment %}{{ (1..99999) | reverse }}{% endcomment %}ok", want: "ok", wantOut: true},
		{name: "bounds from data in output", tpl: "{{ (1..n) | reverse | first }}", want: "a range has more than 10000 values"},
		{name: "bounds from data in assign", tpl: "{% assign a = (1..big) | reverse %}", want: "a range has more than 10000 values"},
		{name: "bounds from a property", tpl: "{{ (0..cfg.max) | sort | last }}", want: "a range has more than 10000 values"},
		{name: "bounds through a variable", tpl: "{% assign m = cfg.max %}{{ (m..big) | uniq | size }}{{ (1..m) | uniq | size }}", want: "a range has more than 10000 values"},
		{name: "range as filter argument", tpl: "{{ s | split: '' | concat: (0..big) | size }}", want: "a range has more than 10000 values"},
		{name: "overflowing bounds from data", tpl: "{% assign lo = -9223372036854775807 %}{% assign hi = 9223372036854775807 %}{{ (lo..hi) | first }}", want: "a range has more than 10000 values"},
		{name: "array doubling in a loop", tpl: "{% assign a = 'ab' | split: '' %}{% for i in (1..40) %}{% assign a = a | concat: a %}{% endfor %}", want: "a filter produced more than 1048576 values"},
		{name: "append chain", tpl: "{% assign t = 'abcdefgh' %}{% for i in (1..17) %}{% assign t = t | append: t %}{% endfor %}{{ t | append: t | append: t | size }}", want: "more than 1048576 bytes"},
		{name: "slow loop body stops at the deadline", tpl: "{% assign a = s | append: s | split: '' %}{% for i in (1..255) %}{% assign b = a | sort %}{% endfor %}",
			// One body (a sort of a million values, about 90 MB) runs before
			// the clock passes the deadline, whatever the machine's speed; the
			// 255 the loop asks for would allocate over 20 GB.
			want: "ran too long", clockTicks: 1},
		{name: "small range in output", tpl: "{{ (1..5) | reverse | join: ',' }}", want: "5,4,3,2,1", wantOut: true},
		{name: "small range assigned", tpl: "{% assign a = (3..5) %}{{ a | first }}-{{ a | last }}", want: "3-5", wantOut: true},
		{name: "largest literal range", tpl: "{{ (1..10000) | last }}", want: "10000", wantOut: true},
		{name: "reversed range is empty", tpl: "{{ (5..1) | join: ',' }}|{{ (big..1) | reverse | size }}", want: "|0", wantOut: true},
		{name: "small range from data", tpl: "{% assign m = 3 %}{{ (1..m) | join: '+' }}", want: "1+2+3", wantOut: true},
		{name: "huge range in a loop is the tick's", tpl: "{% for i in (1..n) %}{% endfor %}", want: "ran too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			defer func() {
				runtime.ReadMemStats(&after)
				// The unbounded versions took 381 MB and more.
				if n := after.TotalAlloc - before.TotalAlloc; n > 128<<20 {
					t.Errorf("allocated %d MB", n>>20)
				}
			}()
			root, err := parseLiquid(tt.tpl)
			if tt.loadErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.loadErr) {
					t.Fatalf("parse error %v, want %q", err, tt.loadErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			start, reads := time.Unix(1_700_000_000, 0), 0
			budget := newLiquidBudgetClock(func() time.Time {
				if tt.clockTicks == 0 {
					return start
				}
				t := start.Add(time.Duration(reads) * liquidMaxTime / time.Duration(tt.clockTicks))
				reads++
				return t
			})
			out, err := renderLiquidBudget(root, data, "", false, budget)
			switch {
			case tt.wantOut && err != nil:
				t.Fatalf("render: %v", err)
			case tt.wantOut && out != tt.want:
				t.Errorf("rendered %q, want %q", out, tt.want)
			case !tt.wantOut && err == nil:
				t.Fatalf("rendered %d bytes without an error", len(out))
			case !tt.wantOut && out != "":
				t.Errorf("rendered %d bytes beside the error %v", len(out), err)
			case !tt.wantOut && !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %q lacks %q", err, tt.want)
			}
		})
	}
}

// FuzzLoadDialect feeds version 1 and Mustache-era documents (and damaged
// ones) to the loader: it must never panic, finish quickly, and whatever
// loads must route, resume and survive a Document round trip with its
// version and its first route.
func FuzzLoadDialect(f *testing.F) {
	data, err := os.ReadFile("testdata/v1/review.workflow.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(v1Base))
	f.Add([]byte(strings.Replace(v1Base, "version: 1", "version: 99", 1)))
	f.Add([]byte(v1Base + "x-a: &a {b: *a}\n"))
	f.Add([]byte(strings.Replace(v1Base, "{{ plan }}", "{% for i in (1..plan) %}{% cycle 'a' %}{% endfor %}", 1)))
	f.Add([]byte(mustacheEraYAML))
	f.Add([]byte(strings.Replace(mustacheEraYAML, "{role: $SUSPEND", "{role: fixer", 1)))
	f.Add([]byte(strings.Replace(v1Base, `"Plan."`, `"Plan {{ x }}."`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		w, err := Parse(nil, "fuzz.workflow.yaml", data)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Parse took %v", d)
		}
		if err != nil {
			return
		}
		_, _ = w.Route(RouteContext{})
		_, _ = w.RouteResume(RouteContext{})
		for _, r := range w.RoleOrder {
			_, _ = w.Route(RouteContext{Steps: []StepView{{Role: r, Output: map[string]any{"$status": SuspendStatus}, Body: "b"}}})
			for _, st := range w.Statuses(r) {
				_, _ = w.Route(RouteContext{Steps: []StepView{{Role: r, Output: map[string]any{"$status": st}, Body: "b"}}})
			}
		}
		b, err := json.Marshal(w.Document())
		if err != nil {
			t.Fatalf("Document is not JSON: %v", err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		back, err := FromDocument(doc)
		if err != nil {
			t.Fatalf("FromDocument of a loaded workflow failed: %v\n%s", err, b)
		}
		if back.Version != w.Version {
			t.Fatalf("version %d became %d", w.Version, back.Version)
		}
		a, errA := w.Route(RouteContext{})
		b2, errB := back.Route(RouteContext{})
		if a != b2 || (errA == nil) != (errB == nil) {
			t.Fatalf("a fresh thread routes to %+v (%v), from the document to %+v (%v)", a, errA, b2, errB)
		}
	})
}

// FuzzLiquid renders arbitrary templates over arbitrary text: no panic,
// no output beyond the cap, no rendering beyond the time budget.
func FuzzLiquid(f *testing.F) {
	for _, seed := range []string{
		"Work on {{ branch }} in {{ repoPath }}",
		"{{ files | join: ', ' }} {{ _body | strip }}",
		"{% for f in files %}{% cycle 'a','b' %}{{ forloop.index }}{% endfor %}",
		"{% assign t = branch %}{% for i in (1..30) %}{% assign t = t | append: t %}{% endfor %}",
		"{% capture c %}{{ branch }}{% endcapture %}{{ c | replace: 'a', c }}",
		"{% tablerow x in files %}{{ x }}{% endtablerow %}",
		"{% case branch %}{% when 'x' %}x{% else %}y{% endcase %}",
		"{% uwfbudgettick %}{% include 'x' %}{% raw %}{{{% endraw %}",
		"{{ (1..10000000) | reverse | first }}",
		"{% assign a = (1..10000000) | reverse %}{{ a | size }}",
		"{% assign m = 1000000000 %}{{ (1..m) | sort | last }}",
		"{% if (1..5) contains 3 %}{{ (1..5) | reverse | join: ',' }}{% endif %}",
		"{% assign a = branch | split: '' %}{% for i in (1..40) %}{% assign a = a | concat: a %}{% endfor %}",
		"{{ (-9223372036854775808..9223372036854775807) | first }}{{ (5..1) | join }}",
	} {
		f.Add(seed, "fix/42-auth")
	}
	f.Fuzz(func(t *testing.T, tpl, value string) {
		root, err := parseLiquid(tpl)
		if err != nil {
			return
		}
		data := map[string]any{"branch": value, "repoPath": value, "files": []any{value, value, 3}}
		start := time.Now()
		out, _ := renderLiquid(root, data, value, false)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("rendering took %v", d)
		}
		if len(out) > liquidMaxOutput {
			t.Fatalf("rendered %d bytes", len(out))
		}
		_, _ = checkLiquid(root, map[string]map[string]any{"branch": {"type": "string"}}, newLiquidBudget())
	})
}

// TestLiquidConcurrentRoutes: listings route many threads of one workflow
// at once; the compiled templates are shared and only read.
func TestLiquidConcurrentRoutes(t *testing.T) {
	data, err := os.ReadFile("testdata/v1/review.workflow.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Parse(nil, "", data)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			for range 50 {
				d, err := w.Route(RouteContext{Steps: []StepView{{Role: "developer", Body: "b",
					Output: map[string]any{"$status": "review_needed", "branch": "fix/1", "files": []any{i}}}}})
				if err == nil && !strings.HasPrefix(d.Prompt, "Review fix/1") {
					err = errors.New("prompt " + d.Prompt)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkRouteDialects routes one step of the same workflow written in
// each dialect: Mustache (older) and Liquid (version 1).
func BenchmarkRouteDialects(b *testing.B) {
	legacy := strings.NewReplacer("version: 1\n", "", "new:", "_:", "{{ plan }}", "{{plan}}").Replace(v1Base)
	for _, tt := range []struct{ name, yaml string }{{"mustache", legacy}, {"liquid", v1Base}} {
		w, err := Parse(nil, "", []byte(tt.yaml))
		if err != nil {
			b.Fatal(err)
		}
		ctx := RouteContext{Steps: []StepView{{Role: "planner", Output: map[string]any{"$status": "ready", "plan": "split the parser"}}}}
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.Route(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadDialects loads the version 1 fixture (Liquid templates are
// compiled and checked against sample outputs at load).
func BenchmarkLoadDialects(b *testing.B) {
	data, err := os.ReadFile("testdata/v1/review.workflow.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(nil, "", data); err != nil {
			b.Fatal(err)
		}
	}
}
