package root_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdtest"
)

// docJSONBlocks returns the ```json blocks of docs/cli.md's section whose
// heading starts with heading (a "###" or "####" heading, up to the next
// heading of any level).
func docJSONBlocks(t *testing.T, heading string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		blocks        []string
		in, inBlock   bool
		cur           strings.Builder
		sectionsFound int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !inBlock && strings.HasPrefix(line, "#") {
			title := strings.TrimLeft(line, "# ")
			in = strings.HasPrefix(title, heading)
			if in {
				sectionsFound++
			}
			continue
		}
		if !in {
			continue
		}
		switch {
		case !inBlock && strings.TrimSpace(line) == "```json":
			inBlock = true
			cur.Reset()
		case inBlock && strings.TrimSpace(line) == "```":
			inBlock = false
			blocks = append(blocks, cur.String())
		case inBlock:
			cur.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if sectionsFound != 1 {
		t.Fatalf("docs/cli.md: %d sections start with %q, want 1", sectionsFound, heading)
	}
	return blocks
}

// docKeys returns the field names of the object a documented shape shows:
// the value-th top-level value of block, or when that is an array, its
// elem-th element. The documentation elides values ("…", {…}), so this
// only tokenises strings and brackets: a field is a string at the object's
// depth followed by a colon.
func docKeys(t *testing.T, block string, value, elem int) []string {
	t.Helper()
	var (
		depth, top, el = 0, -1, -1
		objDepth       = -1
		keys           []string
	)
	for i := 0; i < len(block); i++ {
		c := block[i]
		switch c {
		case '"':
			j := i + 1
			for ; j < len(block) && block[j] != '"'; j++ {
				if block[j] == '\\' {
					j++
				}
			}
			s := block[i+1 : min(j, len(block))]
			rest := strings.TrimLeft(block[min(j+1, len(block)):], " \t\n")
			if objDepth >= 0 && depth == objDepth && strings.HasPrefix(rest, ":") {
				keys = append(keys, s)
			}
			i = j
		case '{', '[':
			if depth == 0 {
				top++
			}
			depth++
			if top == value && objDepth < 0 {
				switch {
				case depth == 1 && c == '{':
					objDepth = 1
				case depth == 2 && c == '{':
					if el++; el == elem {
						objDepth = 2
					}
				}
			}
		case '}', ']':
			if depth == objDepth {
				return keys
			}
			depth--
		}
	}
	t.Fatalf("no object #%d (element %d) in documented shape:\n%s", value, elem, block)
	return nil
}

// outputKeys returns the field names of a command's JSON output: of the
// object, or of the elem-th element of an array.
func outputKeys(t *testing.T, out string, elem int) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	tok, err := dec.Token()
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if tok == json.Delim('[') {
		for i := 0; i < elem; i++ {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatalf("array has no element %d: %v\n%s", elem, err, out)
			}
		}
		if tok, err = dec.Token(); err != nil {
			t.Fatalf("array has no element %d: %v\n%s", elem, err, out)
		}
	}
	if tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %v\n%s", tok, out)
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

const docLoop = `name: loop
roles:
  developer:
    frontmatter:
      type: object
      properties: {$status: {const: review_needed}, summary: {type: string}}
      required: [$status, summary]
  reviewer:
    frontmatter:
      type: object
      properties: {$status: {enum: [approved, rejected]}, comments: {type: string}}
      required: [$status]
graph:
  $START:
    _: {role: developer, prompt: "Implement."}
  developer:
    review_needed: {role: reviewer, prompt: "Review {{summary}}"}
  reviewer:
    rejected: {role: developer, prompt: "Fix {{comments}}"}
    approved: {role: $END, prompt: "Done."}
`

const docMock = `steps:
  - role: developer
    output: "---\n$status: review_needed\nsummary: s\n---\nwork"
  - role: reviewer
    output: "---\n$status: approved\n---\nyes"
`

// TestDocumentedShapes runs every command whose JSON shape docs/cli.md
// documents and checks that its output has exactly the documented fields,
// in the documented order (fields the documentation marks optional may be
// absent).
func TestDocumentedShapes(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	dir := chaintest.InitRepo(t)
	for name, text := range map[string]string{"loop.yaml": docLoop, "mock.yaml": docMock,
		"bad.yaml": "name: bad\nroles: {}\ngraph:\n  $START:\n    _: {role: nobody}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		return cmdtest.MustRun(t, dir, now, append(args, "--format", "json")...)
	}
	put := run("workflow", "put", "loop.yaml")
	var wf struct{ Hash string }
	if err := json.Unmarshal([]byte(put), &wf); err != nil {
		t.Fatal(err)
	}
	start := run("thread", "start", "loop", "-p", "task")
	var th struct{ Thread, Head string }
	if err := json.Unmarshal([]byte(start), &th); err != nil {
		t.Fatal(err)
	}
	step := run("thread", "step", th.Thread, "--agent", "git-uwf agent mock --script mock.yaml")
	var steps []struct{ Step, Commit string }
	if err := json.Unmarshal([]byte(step), &steps); err != nil || len(steps) != 1 {
		t.Fatalf("step: %v\n%s", err, step)
	}
	fork := run("thread", "fork", steps[0].Commit)
	var forked struct{ Thread string }
	if err := json.Unmarshal([]byte(fork), &forked); err != nil {
		t.Fatal(err)
	}
	resume := cmdtest.Run(t, dir, now, "thread", "resume", th.Thread, "--format", "json")
	if resume.Code == 0 {
		t.Fatalf("resume of an idle thread succeeded:\n%s", resume.Out)
	}

	// A second version, rolled back; a bundle, imported elsewhere; the
	// fork removed, then the workflow.
	if err := os.WriteFile(filepath.Join(dir, "loop.yaml"), []byte(strings.Replace(docLoop, "Implement.", "Implement it.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	run("workflow", "put", "loop.yaml")
	rollback := run("workflow", "rollback", "loop")
	bundle := run("thread", "export", th.Thread, "--bundle", filepath.Join(t.TempDir(), "run.bundle"))
	var exported struct{ File string }
	if err := json.Unmarshal([]byte(bundle), &exported); err != nil {
		t.Fatal(err)
	}
	imported := cmdtest.MustRun(t, chaintest.InitRepo(t), now, "thread", "import", exported.File, "--format", "json")
	var doomed struct{ Thread string }
	if err := json.Unmarshal([]byte(run("thread", "start", "loop", "-p", "to remove")), &doomed); err != nil {
		t.Fatal(err)
	}
	removeThread := run("thread", "remove", doomed.Thread)
	if err := os.WriteFile(filepath.Join(dir, "gone.yaml"), []byte(strings.Replace(docLoop, "name: loop", "name: gone", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	run("workflow", "put", "gone.yaml")
	removeWorkflow := run("workflow", "remove", "gone")

	tests := []struct {
		heading     string
		block       int // which json block of the section
		value, elem int // which top-level value, which array element
		outElem     int // which element of an array output
		out         string
		optional    []string
	}{
		{heading: "`git uwf thread start ", out: start},
		{heading: "`git uwf thread step ", out: step, optional: []string{"reusedAttempt"}},
		{heading: "`git uwf thread show ", out: run("thread", "show", th.Thread)},
		{heading: "`git uwf thread list ", out: run("thread", "list"), optional: []string{"suspendedRole", "error"}},
		{heading: "`git uwf thread steps ", out: run("thread", "steps", th.Thread)},
		{heading: "`git uwf thread read ", out: run("thread", "read", th.Thread)},
		{heading: "`git uwf thread export ", out: run("thread", "export", th.Thread)},
		{heading: "`git uwf thread fork ", out: fork},
		{heading: "`git uwf thread cancel ", out: run("thread", "cancel", forked.Thread), optional: []string{"children"}},
		{heading: "`git uwf step show ", out: run("step", "show", steps[0].Step), optional: []string{"detail"}},
		{heading: "`git uwf workflow put ", out: put},
		{heading: "`git uwf workflow validate ", out: run("workflow", "validate", "loop.yaml"), optional: []string{"problems"}},
		{heading: "`git uwf workflow validate ", value: 1, out: cmdtest.Run(t, dir, now, "workflow", "validate", "bad.yaml", "--format", "json").Out,
			optional: []string{"name", "roles"}},
		{heading: "`git uwf workflow show ", out: run("workflow", "show", "loop"), optional: []string{"conditions"}},
		{heading: "`git uwf workflow list", elem: 1, outElem: 0, out: run("workflow", "list")},
		{heading: "`git uwf workflow history ", out: run("workflow", "history", "loop")},
		{heading: "`git uwf workflow graph ", out: run("workflow", "graph", "loop")},
		{heading: "`git uwf thread export ", block: 1, out: bundle},
		{heading: "`git uwf thread import ", out: imported},
		{heading: "`git uwf thread remove ", out: removeThread},
		{heading: "`git uwf workflow rollback ", out: rollback},
		{heading: "`git uwf workflow remove ", out: removeWorkflow},
		{heading: "`git uwf cas get ", out: run("cas", "get", wf.Hash)},
		{heading: "`git uwf cas put ", out: run("cas", "put", "--text", "hello")},
		{heading: "`git uwf cas has ", out: run("cas", "has", wf.Hash)},
		{heading: "`git uwf cas refs ", out: run("cas", "refs", wf.Hash)},
		{heading: "`git uwf cas refs ", value: 1, out: run("cas", "walk", wf.Hash)},
		{heading: "`git uwf cas reindex", out: run("cas", "reindex")},
		{heading: "`git uwf cas schema list", out: run("cas", "schema", "list")},
	}
	// The values of the protocol fields: head is the step just appended,
	// done is true once the thread completed.
	last := run("thread", "step", th.Thread, "--agent", "git-uwf agent mock --script mock.yaml")
	var final []struct {
		Step, Head, Status string
		Done               bool
	}
	if err := json.Unmarshal([]byte(last), &final); err != nil || len(final) != 1 {
		t.Fatalf("step: %v\n%s", err, last)
	}
	if f := final[0]; f.Head != f.Step || f.Status != "completed" || !f.Done {
		t.Errorf("last step: head %q step %q status %q done %v, want head = step, completed, done", f.Head, f.Step, f.Status, f.Done)
	}
	if !strings.Contains(step, `"done": false`) {
		t.Errorf("first step is not done:\n%s", step)
	}
	for _, tt := range tests {
		t.Run(strings.Trim(tt.heading, "` ")+"#"+string(rune('0'+tt.value)), func(t *testing.T) {
			blocks := docJSONBlocks(t, tt.heading)
			if tt.block >= len(blocks) {
				t.Fatalf("docs/cli.md documents no JSON block #%d for %s", tt.block, tt.heading)
			}
			want := docKeys(t, blocks[tt.block], tt.value, tt.elem)
			got := outputKeys(t, tt.out, tt.outElem)
			// Optional fields count only when the output has them.
			want = slices.DeleteFunc(want, func(k string) bool {
				return slices.Contains(tt.optional, k) && !slices.Contains(got, k)
			})
			if !slices.Equal(got, want) {
				t.Errorf("fields differ from docs/cli.md:\n got  %s\n doc  %s\noutput: %s", strings.Join(got, " "), strings.Join(want, " "), tt.out)
			}
		})
	}
}

// TestDocKeys checks the documented-shape reader on the forms the
// documentation uses: elided values, nested objects, arrays of objects,
// several values in one block.
func TestDocKeys(t *testing.T) {
	tests := []struct {
		block       string
		value, elem int
		want        string
	}{
		{`{"a": "…", "b": {…}, "c": [{"x": 1}], "d": null}`, 0, 0, "a b c d"},
		{`[{"a": "…", "b": "x:y"}, {"c": {"d": 1}, "e": "\"f\": 2"}]`, 0, 1, "c e"},
		{"{\"valid\": true}\n{\"valid\": false, \"problems\": [{\"file\": \"x\"}]}", 1, 0, "valid problems"},
		{`{"remote": "o", "results": [{"ref": "…", "kind": "new"}]}`, 0, 0, "remote results"},
	}
	for _, tt := range tests {
		if got := strings.Join(docKeys(t, tt.block, tt.value, tt.elem), " "); got != tt.want {
			t.Errorf("docKeys(%s, %d, %d) = %q, want %q", tt.block, tt.value, tt.elem, got, tt.want)
		}
	}
}
