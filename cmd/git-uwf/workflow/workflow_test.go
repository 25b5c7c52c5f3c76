package workflow_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdtest"
	"github.com/git-uwf/git-uwf/objects"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// now is the clock every test run sees, so registry times are stable.
var now = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// result is what one in-process run of git-uwf produced.
type result struct {
	code     int
	out, err string
}

// run runs `git uwf args…` in-process with dir as the working directory.
func run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	r := cmdtest.Run(t, dir, now, args...)
	return result{code: r.Code, out: r.Out, err: r.Err}
}

// mustRun runs git uwf and fails the test unless it exits 0.
func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return cmdtest.MustRun(t, dir, now, args...)
}

// newRepo creates a repository holding the fixture workflow files at its top.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := chaintest.InitRepo(t)
	ents, err := os.ReadDir("testdata/workflows")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		copyFile(t, filepath.Join("testdata/workflows", e.Name()), filepath.Join(dir, e.Name()))
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// uwfRefs lists refs/uwf/* of the repository in dir.
func uwfRefs(t *testing.T, dir string) string {
	t.Helper()
	return chaintest.Git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/uwf/")
}

// objectFiles lists the loose and packed object files of the repository.
func objectFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	root := filepath.Join(dir, ".git", "objects")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, strings.TrimPrefix(p, root))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

var (
	commitRE      = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	shortCommitRE = regexp.MustCompile(`\b[0-9a-f]{12}\b`)
)

// scrub makes output independent of the temp directory and of commit ids
// (which depend on the committer identity of the machine).
func scrub(s, dir string) string {
	s = strings.ReplaceAll(s, dir, "$REPO")
	s = commitRE.ReplaceAllString(s, "<commit>")
	return shortCommitRE.ReplaceAllString(s, "<short>")
}

// golden compares a run against testdata/golden/<name>.golden, which holds
// the exit code, stdout and stderr; -update rewrites it.
func golden(t *testing.T, name, dir string, r result) {
	t.Helper()
	got := cmdtest.Result{Code: r.code, Out: r.out, Err: r.err}.Transcript()
	cmdtest.Golden(t, filepath.Join("testdata", "golden", name+".golden"), scrub(got, dir), *update)
}

// registeredHash puts the fixture review-loop and returns its alias.
func registeredHash(t *testing.T, dir string) string {
	t.Helper()
	var res struct{ Hash string }
	if err := json.Unmarshal([]byte(mustRun(t, dir, "workflow", "put", "review-loop.yaml", "--format", "json")), &res); err != nil {
		t.Fatal(err)
	}
	return res.Hash
}

// TestGolden pins the output of every command, text and machine forms.
func TestGolden(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // runs before; may change files
		wd    string                         // working directory below the repo
		args  []string
	}{
		{name: "put-json", args: []string{"workflow", "put", "review-loop.yaml", "--format", "json"}},
		{name: "put-text", args: []string{"workflow", "put", "review-loop.yaml"}},
		{name: "put-yaml", args: []string{"--format", "yaml", "workflow", "add", "review-loop.yaml"}},
		{name: "put-again-text", setup: putReviewLoop, args: []string{"workflow", "put", "review-loop.yaml"}},
		{name: "put-again-json", setup: putReviewLoop, args: []string{"workflow", "put", "./review-loop.yaml", "--format", "json"}},
		{name: "validate-json", args: []string{"workflow", "validate", "triage.yaml", "--format", "json"}},
		{name: "validate-text", args: []string{"workflow", "validate", "triage.yaml"}},
		{name: "validate-invalid-json", args: []string{"workflow", "validate", "--format", "json", "unknown-role.yaml"}},
		{name: "validate-invalid-text", args: []string{"workflow", "validate", "bad-schema.yaml"}},
		{name: "show-json", setup: putReviewLoop, args: []string{"workflow", "show", "review-loop", "--format", "json"}},
		{name: "show-text", setup: putReviewLoop, args: []string{"workflow", "show", "review-loop"}},
		{name: "show-file-text", args: []string{"workflow", "show", "triage.yaml"}},
		{name: "show-file-json", args: []string{"workflow", "show", "triage.yaml", "--format", "json"}},
		{name: "list-json", setup: listSetup, args: []string{"workflow", "list", "--format", "json"}},
		{name: "list-text", setup: listSetup, args: []string{"workflow", "ls"}},
		{name: "list-subdir-json", setup: listSetup, wd: "sub/dir", args: []string{"workflow", "list", "--format", "json"}},
		{name: "list-empty-json", args: []string{"workflow", "list", "--format", "json"}},
		{name: "list-empty-text", args: []string{"workflow", "list"}},
		{name: "history-json", setup: twoVersions, args: []string{"workflow", "history", "review-loop", "--format", "json"}},
		{name: "history-text", setup: twoVersions, args: []string{"workflow", "history", "review-loop"}},
		{name: "graph-mermaid", args: []string{"workflow", "graph", "triage.yaml"}},
		{name: "graph-json", args: []string{"workflow", "graph", "triage.yaml", "--format", "json"}},
		{name: "graph-status-mermaid", setup: putReviewLoop, args: []string{"workflow", "graph", "review-loop"}},
		{name: "graph-dot", args: []string{"workflow", "graph", "triage.yaml", "--format", "dot"}},
		{name: "graph-status-dot", setup: putReviewLoop, args: []string{"workflow", "graph", "review-loop", "--format", "dot"}},
		{name: "graph-global-json", args: []string{"--format", "json", "workflow", "graph", "triage.yaml"}},
		{name: "err-graph-format", args: []string{"workflow", "graph", "triage.yaml", "--format", "png"}},
		{name: "err-malformed", args: []string{"workflow", "put", "malformed.yaml"}},
		{name: "err-bad-schema", args: []string{"workflow", "put", "bad-schema.yaml"}},
		{name: "err-unknown-role", args: []string{"workflow", "put", "unknown-role.yaml"}},
		{name: "err-include-escape", args: []string{"workflow", "put", "escape.yaml"}},
		{name: "err-missing-file", args: []string{"workflow", "put", "nope.yaml"}},
		{name: "err-show-unknown", args: []string{"workflow", "show", "nope"}},
		{name: "err-history-unknown", args: []string{"workflow", "history", "nope"}},
		{name: "err-put-no-arg", args: []string{"workflow", "put"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := newRepo(t)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			wd := filepath.Join(dir, filepath.FromSlash(tt.wd))
			golden(t, tt.name, dir, run(t, wd, tt.args...))
		})
	}
}

func putReviewLoop(t *testing.T, dir string) { mustRun(t, dir, "workflow", "put", "review-loop.yaml") }

// listSetup registers review-loop and leaves triage (valid), escape
// (invalid) and review-loop (registered) in .uwf/workflows/, plus a nested
// .uwf/workflows/ in sub/ that shadows triage.
func listSetup(t *testing.T, dir string) {
	putReviewLoop(t, dir)
	wf := filepath.Join(dir, ".uwf", "workflows")
	for _, name := range []string{"review-loop.yaml", "triage.yaml", "escape.yaml"} {
		copyFile(t, filepath.Join(dir, name), filepath.Join(wf, name))
	}
	copyFile(t, filepath.Join(dir, "triage.yaml"), filepath.Join(dir, "sub", ".uwf", "workflows", "triage", "index.yaml"))
	if err := os.MkdirAll(filepath.Join(dir, "sub", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// twoVersions registers review-loop, changes its description and registers
// it again.
func twoVersions(t *testing.T, dir string) {
	putReviewLoop(t, dir)
	editDescription(t, dir, "Second version.")
	putReviewLoop(t, dir)
}

func editDescription(t *testing.T, dir, desc string) {
	t.Helper()
	path := filepath.Join(dir, "review-loop.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^description: .*$`)
	if !re.Match(data) {
		t.Fatal("fixture has no description line")
	}
	if err := os.WriteFile(path, re.ReplaceAll(data, []byte("description: "+desc)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPutIdempotentAndHistory checks that an identical put changes nothing
// and that a changed file adds a version on top.
func TestPutIdempotentAndHistory(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	type put struct {
		Name, Hash, Commit string
		Changed            bool
	}
	doPut := func() put {
		var p put
		if err := json.Unmarshal([]byte(mustRun(t, dir, "workflow", "put", "review-loop.yaml", "--format", "json")), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	historyLen := func() int {
		var h []map[string]any
		if err := json.Unmarshal([]byte(mustRun(t, dir, "workflow", "history", "review-loop", "--format", "json")), &h); err != nil {
			t.Fatal(err)
		}
		return len(h)
	}

	first := doPut()
	if !first.Changed || first.Name != "review-loop" {
		t.Fatalf("first put = %+v, want changed review-loop", first)
	}
	refs := uwfRefs(t, dir)
	objs := objectFiles(t, dir)
	again := doPut()
	if again != (put{first.Name, first.Hash, first.Commit, false}) {
		t.Errorf("identical re-put = %+v, want %+v unchanged", again, first)
	}
	if got := uwfRefs(t, dir); got != refs {
		t.Errorf("identical re-put moved refs:\n%s\nwant\n%s", got, refs)
	}
	if got := objectFiles(t, dir); !slices.Equal(got, objs) {
		t.Errorf("identical re-put wrote objects: %d files, had %d", len(got), len(objs))
	}
	if n := historyLen(); n != 1 {
		t.Errorf("history has %d versions after identical puts, want 1", n)
	}

	editDescription(t, dir, "Changed.")
	second := doPut()
	if !second.Changed || second.Hash == first.Hash || second.Commit == first.Commit {
		t.Errorf("put of a changed file = %+v, want a new hash and commit (first %+v)", second, first)
	}
	if n := historyLen(); n != 2 {
		t.Errorf("history has %d versions, want 2", n)
	}
	parent := chaintest.Git(t, dir, "rev-parse", second.Commit+"^")
	if parent != first.Commit {
		t.Errorf("new version's parent = %s, want the first version %s", parent, first.Commit)
	}
	chaintest.Fsck(t, dir)
}

// TestShowResolves checks that show finds a workflow by name, alias,
// lower-case alias prefix, file path and a .uwf/workflows/ file found from
// a subdirectory.
func TestShowResolves(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	hash := registeredHash(t, dir)
	copyFile(t, filepath.Join(dir, "triage.yaml"), filepath.Join(dir, ".uwf", "workflows", "triage.yaml"))
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	triageHash := showHash(t, dir, "triage.yaml")

	tests := []struct {
		name, wd, arg, want string
	}{
		{"name", dir, "review-loop", hash},
		{"alias", dir, hash, hash},
		{"alias prefix", dir, strings.ToLower(hash[:6]), hash},
		{"relative file", dir, "./review-loop.yaml", hash},
		{"absolute file", sub, filepath.Join(dir, "review-loop.yaml"), hash},
		{"file from subdirectory", sub, "../../review-loop.yaml", hash},
		{"workflows dir from subdirectory", sub, "triage", triageHash},
		{"registered name from subdirectory", sub, "review-loop", hash},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := showHash(t, tt.wd, tt.arg); got != tt.want {
				t.Errorf("show %s = %s, want %s", tt.arg, got, tt.want)
			}
		})
	}
}

func showHash(t *testing.T, wd, arg string) string {
	t.Helper()
	var res struct{ Hash string }
	if err := json.Unmarshal([]byte(mustRun(t, wd, "workflow", "show", arg, "--format", "json")), &res); err != nil {
		t.Fatal(err)
	}
	return res.Hash
}

// TestBadInputs checks that every bad input exits 1 with a message naming
// what and where, and writes no ref.
func TestBadInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"malformed yaml", []string{"workflow", "put", "malformed.yaml"}, []string{"malformed.yaml:4:11:", "invalid YAML"}},
		{"unclosed flow mapping", []string{"workflow", "validate", "unclosed.yaml"}, []string{"unclosed.yaml:4:18: invalid YAML: did not find expected ',' or '}' (this '{' is never closed)"}},
		{"invalid schema", []string{"workflow", "put", "bad-schema.yaml"}, []string{"bad-schema.yaml:6:7:", "invalid frontmatter schema"}},
		{"unknown role", []string{"workflow", "put", "unknown-role.yaml"}, []string{"unknown-role.yaml:10:16:", `unknown role "editor"`}},
		{"include escape", []string{"workflow", "put", "escape.yaml"}, []string{"escape.yaml:4:11:", `!include "../../x"`}},
		{"missing file", []string{"workflow", "put", "missing.yaml"}, []string{"missing.yaml does not exist"}},
		{"unknown workflow", []string{"workflow", "show", "missing"}, []string{`"missing"`, "unknown workflow"}},
		{"unknown alias", []string{"workflow", "show", "0000000000000"}, []string{"0000000000000", "unknown workflow"}},
		{"unknown graph", []string{"workflow", "graph", "missing"}, []string{`"missing"`, "unknown workflow"}},
		{"history of unknown", []string{"workflow", "history", "missing"}, []string{`workflow "missing" is not registered`}},
		{"invalid file by name", []string{"workflow", "show", "escape.yaml"}, []string{"escape.yaml:4:11:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := newRepo(t)
			r := run(t, dir, tt.args...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1; stderr:\n%s", r.code, r.err)
			}
			if !strings.HasPrefix(r.err, "error: ") {
				t.Errorf("stderr does not start with 'error: ':\n%s", r.err)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.err, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.err)
				}
			}
			if r.out != "" {
				t.Errorf("stdout not empty: %q", r.out)
			}
			if refs := uwfRefs(t, dir); strings.Contains(refs, "refs/uwf/workflows/") {
				t.Errorf("a workflow ref was written:\n%s", refs)
			}
		})
	}
}

// TestInvalidPutWritesNothing checks that a rejected put leaves the object
// database as it was.
func TestInvalidPutWritesNothing(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	putReviewLoop(t, dir) // so schemas and index exist already
	before := objectFiles(t, dir)
	for _, file := range []string{"malformed.yaml", "bad-schema.yaml", "unknown-role.yaml", "escape.yaml"} {
		if r := run(t, dir, "workflow", "put", file); r.code != 1 {
			t.Errorf("put %s: exit %d, want 1", file, r.code)
		}
	}
	if after := objectFiles(t, dir); !slices.Equal(after, before) {
		t.Errorf("rejected puts wrote objects: %d files, had %d", len(after), len(before))
	}
}

// TestAmbiguousPrefix stores two nodes whose aliases share a
// four-character prefix and checks that show reports the ambiguity.
func TestAmbiguousPrefix(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	prefix := ambiguousPrefix(t, dir)
	r := run(t, dir, "workflow", "show", prefix)
	if r.code != 1 || !strings.Contains(r.err, "alias prefix "+prefix+" is ambiguous") {
		t.Errorf("show %s: exit %d, stderr %q; want exit 1 and an ambiguity error", prefix, r.code, r.err)
	}
}

// ambiguousPrefix finds two texts whose aliases share their first four
// characters, stores both and returns the prefix.
func ambiguousPrefix(t *testing.T, dir string) string {
	t.Helper()
	store := chaintest.Open(t, dir).Store
	ts, err := store.TextSchema()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for i := 0; ; i++ {
		text := "text " + strconv.Itoa(i)
		blob, err := objects.EncodeNode(ts.Alias, text)
		if err != nil {
			t.Fatal(err)
		}
		p := string(objects.AliasOf(blob))[:4]
		if other, ok := seen[p]; ok {
			for _, s := range []string{other, text} {
				if _, err := store.PutText(s); err != nil {
					t.Fatal(err)
				}
			}
			return p
		}
		seen[p] = text
	}
}

// TestOutsideRepository checks that every command but validate needs a
// repository and says so in one line.
func TestOutsideRepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyFile(t, "testdata/workflows/review-loop.yaml", filepath.Join(dir, "review-loop.yaml"))
	for _, args := range [][]string{
		{"workflow", "put", "review-loop.yaml"},
		{"workflow", "show", "review-loop.yaml"},
		{"workflow", "list"},
		{"workflow", "history", "review-loop"},
		{"workflow", "graph", "review-loop.yaml"},
	} {
		r := run(t, dir, args...)
		want := "error: " + dir + ": not a git repository (run this inside a git repository, or set GIT_DIR)\n"
		if r.code != 1 || r.err != want {
			t.Errorf("%s: exit %d, stderr %q; want exit 1, %q", strings.Join(args, " "), r.code, r.err, want)
		}
	}
	r := run(t, dir, "workflow", "validate", "review-loop.yaml", "--format", "json")
	if r.code != 0 || !strings.Contains(r.out, `"valid": true`) {
		t.Errorf("validate outside a repository: exit %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
}

// TestDirFlag checks that -C runs the command in another directory and
// that relative file arguments resolve against it.
func TestDirFlag(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	elsewhere := t.TempDir()
	out := mustRun(t, elsewhere, "-C", dir, "workflow", "put", "review-loop.yaml", "--format", "json")
	if !strings.Contains(out, `"changed": true`) {
		t.Errorf("put with -C: %s", out)
	}
	out = mustRun(t, elsewhere, "workflow", "list", "-C", dir, "--format", "json")
	if !strings.Contains(out, `"name": "review-loop"`) {
		t.Errorf("list with -C after the command: %s", out)
	}
	if r := run(t, elsewhere, "workflow", "list"); r.code != 1 {
		t.Errorf("list without -C outside a repo: exit %d, want 1", r.code)
	}
}

// TestUsageErrors checks argument counting: exit 2 with a hint.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	for _, args := range [][]string{
		{"workflow", "put"},
		{"workflow", "put", "a.yaml", "b.yaml"},
		{"workflow", "validate"},
		{"workflow", "show"},
		{"workflow", "graph"},
		{"workflow", "history"},
		{"workflow", "list", "extra"},
		{"workflow", "show", "review-loop", "--format", "xml"},
		{"workflow", "nope"},
	} {
		r := run(t, dir, args...)
		if r.code != 2 || !strings.Contains(r.err, "-h' for usage") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 with a usage hint", strings.Join(args, " "), r.code, r.err)
		}
	}
}

// TestJSONFields pins the field names of every machine-readable shape.
func TestJSONFields(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	putReviewLoop(t, dir)
	copyFile(t, filepath.Join(dir, "triage.yaml"), filepath.Join(dir, ".uwf", "workflows", "triage.yaml"))
	copyFile(t, filepath.Join(dir, "escape.yaml"), filepath.Join(dir, ".uwf", "workflows", "escape.yaml"))
	tests := []struct {
		args []string
		sel  []string // path to the object inside the output; see fieldsOf
		want []string
	}{
		{[]string{"workflow", "put", "review-loop.yaml"}, nil, []string{"name", "hash", "commit", "changed"}},
		{[]string{"workflow", "validate", "review-loop.yaml"}, nil, []string{"valid", "name", "roles"}},
		{[]string{"workflow", "validate", "escape.yaml"}, nil, []string{"valid", "problems"}},
		{[]string{"workflow", "validate", "escape.yaml"}, []string{"problems"}, []string{"file", "line", "col", "message"}},
		{[]string{"workflow", "show", "review-loop"}, nil, []string{"name", "hash", "description", "form", "roles", "graph", "roleSchemas"}},
		{[]string{"workflow", "show", "triage"}, nil, []string{"name", "hash", "description", "form", "roles", "graph", "conditions", "roleSchemas"}},
		{[]string{"workflow", "show", "triage"}, []string{"roles", "sorter"}, []string{"capabilities", "description", "frontmatter", "goal", "output", "procedure"}},
		{[]string{"workflow", "list"}, []string{"[origin=registry]"}, []string{"name", "origin", "hash", "description", "updatedAt"}},
		{[]string{"workflow", "list"}, []string{"[name=triage]"}, []string{"name", "origin", "description", "path"}},
		{[]string{"workflow", "list"}, []string{"[error]"}, []string{"name", "origin", "description", "path", "error"}},
		{[]string{"workflow", "history", "review-loop"}, nil, []string{"hash", "commit", "updatedAt", "description"}},
		{[]string{"workflow", "graph", "triage"}, nil, []string{"nodes", "edges"}},
		{[]string{"workflow", "graph", "triage"}, []string{"nodes"}, []string{"id", "kind"}},
		{[]string{"workflow", "graph", "triage"}, []string{"edges"}, []string{"from", "to", "status", "condition", "prompt", "location"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append(tt.args, tt.sel...), " "), func(t *testing.T) {
			r := run(t, dir, append(tt.args, "--format", "json")...)
			if r.code != 0 && !slices.Contains(tt.args, "escape.yaml") {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			got := fieldsOf(t, r.out, tt.sel)
			if !slices.Equal(got, tt.want) {
				t.Errorf("fields = %v, want %v", got, tt.want)
			}
		})
	}
}

// object is a JSON object with its keys in output order.
type object struct {
	keys []string
	vals map[string]any
}

// decodeOrdered decodes one JSON value, keeping the key order of objects.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &object{vals: map[string]any{}}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, k.(string))
			o.vals[k.(string)] = v
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		var arr []any
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token()
		return arr, err
	}
	return tok, nil
}

// fieldsOf returns the keys, in output order, of the object that sel
// selects in the JSON text raw: a name descends into that field; "[k=v]"
// or "[k]" picks the first array element whose field k is v (or exists).
// An array is represented by its first element.
func fieldsOf(t *testing.T, raw string, sel []string) []string {
	t.Helper()
	v, err := decodeOrdered(json.NewDecoder(strings.NewReader(raw)))
	if err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, raw)
	}
	for _, s := range sel {
		if strings.HasPrefix(s, "[") {
			k, val, hasVal := strings.Cut(strings.Trim(s, "[]"), "=")
			var found any
			arr, _ := v.([]any)
			for _, e := range arr {
				if o, ok := e.(*object); ok {
					if x, ok := o.vals[k]; ok && (!hasVal || x == val) {
						found = e
						break
					}
				}
			}
			if found == nil {
				t.Fatalf("no element %s in %s", s, raw)
			}
			v = found
			continue
		}
		o, ok := v.(*object)
		if !ok {
			t.Fatalf("cannot select %q in %s", s, raw)
		}
		v = o.vals[s]
	}
	if arr, ok := v.([]any); ok {
		if len(arr) == 0 {
			t.Fatalf("empty array in %s", raw)
		}
		v = arr[0]
	}
	o, ok := v.(*object)
	if !ok {
		t.Fatalf("not an object: %v", v)
	}
	return o.keys
}
