package cas_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdtest"
	"github.com/git-uwf/git-uwf/objects"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// Aliases of the fixture, fixed by its content (checked by TestFixture).
const (
	workflowHash = "AQKDV4HAK5V94" // review-loop
	authorSchema = "6K2TM31QJKDV7" // review-loop.author
	criticSchema = "7QMR85XJMSPBD" // review-loop.critic
)

type result struct {
	code     int
	out, err string
}

// run runs `git uwf args…` in-process in dir, with stdin as standard input.
func run(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	r := cmdtest.RunStdin(t, dir, time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC), stdin, args...)
	return result{code: r.Code, out: r.Out, err: r.Err}
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := run(t, dir, "", args...)
	if r.code != 0 {
		t.Fatalf("git uwf %s: exit %d\n%s", strings.Join(args, " "), r.code, r.err)
	}
	return r.out
}

// newRepo creates a repository with the fixture workflow registered and
// the fixture payload file at its top.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := chaintest.InitRepo(t)
	for _, name := range []string{"review-loop.yaml", "author-output.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, dir, "workflow", "put", "review-loop.yaml")
	return dir
}

func golden(t *testing.T, name, dir string, r result) {
	t.Helper()
	got := cmdtest.Result{Code: r.code, Out: r.out, Err: r.err}.Transcript()
	cmdtest.Golden(t, filepath.Join("testdata", "golden", name+".golden"), strings.ReplaceAll(got, dir, "$REPO"), *update)
}

// TestFixture checks the aliases the other tests rely on.
func TestFixture(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	out := mustRun(t, dir, "workflow", "show", "review-loop", "--format", "json")
	for _, a := range []string{workflowHash, authorSchema, criticSchema} {
		if !strings.Contains(out, `"`+a+`"`) {
			t.Errorf("fixture alias %s not in workflow show output:\n%s", a, out)
		}
	}
}

// TestGolden pins the output of every command.
func TestGolden(t *testing.T) {
	meta := string(objects.MetaSchemaAlias())
	tests := []struct {
		name  string
		stdin string
		args  []string
	}{
		{name: "get-json", args: []string{"cas", "get", workflowHash, "--format", "json"}},
		{name: "get-text", args: []string{"cas", "get", authorSchema}},
		{name: "get-prefix-yaml", args: []string{"cas", "get", strings.ToLower(authorSchema[:5]), "--format", "yaml"}},
		{name: "get-meta-json", args: []string{"cas", "get", meta, "--format", "json"}},
		{name: "get-expand-json", args: []string{"cas", "get", "--expand", workflowHash, "--format", "json"}},
		{name: "put-inline-json", args: []string{"cas", "put", authorSchema, `{"$status":"ready","branch":"b"}`, "--format", "json"}},
		{name: "put-title-file-text", args: []string{"cas", "put", "review-loop.author", "author-output.json"}},
		{name: "put-stdin-json", stdin: `{"$status": "accepted"}`, args: []string{"cas", "put", criticSchema, "-", "--format", "json"}},
		{name: "put-text-json", args: []string{"cas", "put", "--text", "hello, world", "--format", "json"}},
		{name: "put-text-stdin", stdin: "line one\nline two\n", args: []string{"cas", "put", "--text", "-"}},
		{name: "put-schema-json", args: []string{"cas", "put", meta, `{"title":"note","type":"object","properties":{"text":{"type":"string"}}}`, "--format", "json"}},
		{name: "has-present-json", args: []string{"cas", "has", workflowHash, "--format", "json"}},
		{name: "has-prefix-text", args: []string{"cas", "has", workflowHash[:6]}},
		{name: "has-absent-json", args: []string{"cas", "has", "0000000000000", "--format", "json"}},
		{name: "has-absent-text", args: []string{"cas", "has", "0000000000000"}},
		{name: "refs-json", args: []string{"cas", "refs", workflowHash, "--format", "json"}},
		{name: "refs-text", args: []string{"cas", "refs", workflowHash}},
		{name: "refs-none-json", args: []string{"cas", "refs", authorSchema, "--format", "json"}},
		{name: "walk-json", args: []string{"cas", "walk", workflowHash, "--format", "json"}},
		{name: "walk-text", args: []string{"cas", "walk", workflowHash}},
		{name: "reindex-json", args: []string{"cas", "reindex", "--format", "json"}},
		{name: "reindex-text", args: []string{"cas", "reindex"}},
		{name: "schema-list-json", args: []string{"cas", "schema", "list", "--format", "json"}},
		{name: "schema-list-text", args: []string{"cas", "schema", "ls"}},
		{name: "schema-get-json", args: []string{"cas", "schema", "get", "review-loop.critic", "--format", "json"}},
		{name: "schema-get-text", args: []string{"cas", "schema", "get", authorSchema}},
		{name: "err-get-unknown-prefix", args: []string{"cas", "get", "0ABC"}},
		{name: "err-get-unknown", args: []string{"cas", "get", "0000000000000"}},
		{name: "err-get-malformed", args: []string{"cas", "get", "Z0000000000000"}},
		{name: "err-has-malformed", args: []string{"cas", "has", "xyz"}},
		{name: "err-put-invalid", args: []string{"cas", "put", authorSchema, `{"$status":"done"}`}},
		{name: "err-put-bad-json", args: []string{"cas", "put", authorSchema, `{"$status":`}},
		{name: "err-put-bad-file", args: []string{"cas", "put", authorSchema, "review-loop.yaml"}},
		{name: "err-put-not-schema", args: []string{"cas", "put", workflowHash, `{}`}},
		{name: "err-put-unknown-type", args: []string{"cas", "put", "no-such-title", `{}`}},
		{name: "err-put-bad-schema", args: []string{"cas", "put", meta, `{"type":42}`}},
		{name: "err-put-args", args: []string{"cas", "put", authorSchema}},
		{name: "err-schema-get-not-schema", args: []string{"cas", "schema", "get", workflowHash}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := newRepo(t)
			golden(t, tt.name, dir, run(t, dir, tt.stdin, tt.args...))
		})
	}
}

// TestHasExitCodes checks the exit code contract of cas has.
func TestHasExitCodes(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	text := strings.TrimSpace(mustRun(t, dir, "cas", "put", "--text", "kept"))
	tests := []struct {
		arg  string
		code int
	}{
		{workflowHash, 0},
		{strings.ToLower(workflowHash), 0},
		{workflowHash[:4], 0},
		{text, 0},
		{"0000000000000", 1},
		{"0000", 1},
		{"abc", 2},
		{"UUUUUUUUUUUUU", 2},
		{"Z000", 2},
	}
	for _, tt := range tests {
		if r := run(t, dir, "", "cas", "has", tt.arg); r.code != tt.code {
			t.Errorf("cas has %s: exit %d, want %d (stdout %q, stderr %q)", tt.arg, r.code, tt.code, r.out, r.err)
		}
	}
}

// TestPutThenGet round-trips payloads through put and get, and checks that
// the alias is the same however the payload was spelled.
func TestPutThenGet(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	hashes := map[string]bool{}
	for _, in := range []string{`{"branch":"b","$status":"ready"}`, "{ \"$status\" : \"ready\",\n \"branch\": \"b\" }"} {
		var res struct{ Hash string }
		if err := json.Unmarshal([]byte(mustRun(t, dir, "cas", "put", authorSchema, in, "--format", "json")), &res); err != nil {
			t.Fatal(err)
		}
		hashes[res.Hash] = true
		var node struct {
			Hash, Type string
			Payload    map[string]any
		}
		if err := json.Unmarshal([]byte(mustRun(t, dir, "cas", "get", res.Hash, "--format", "json")), &node); err != nil {
			t.Fatal(err)
		}
		if node.Hash != res.Hash || node.Type != authorSchema || node.Payload["branch"] != "b" {
			t.Errorf("get %s = %+v", res.Hash, node)
		}
	}
	if len(hashes) != 1 {
		t.Errorf("the same payload got %d aliases: %v", len(hashes), hashes)
	}
}

// TestPutIsUnreachable documents that cas put writes no ref, and that
// reindex forgets such nodes.
func TestPutIsUnreachable(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	refs := chaintest.Git(t, dir, "for-each-ref", "refs/uwf/")
	a := strings.TrimSpace(mustRun(t, dir, "cas", "put", "--text", "orphan"))
	if got := chaintest.Git(t, dir, "for-each-ref", "refs/uwf/"); got != refs {
		t.Errorf("cas put changed refs:\n%s\nwant\n%s", got, refs)
	}
	if r := run(t, dir, "", "cas", "has", a); r.code != 0 {
		t.Fatalf("cas has %s right after put: exit %d", a, r.code)
	}
	mustRun(t, dir, "cas", "reindex")
	if r := run(t, dir, "", "cas", "has", a); r.code != 1 {
		t.Errorf("cas has %s after reindex: exit %d, want 1 (unreachable nodes leave the index)", a, r.code)
	}
	if r := run(t, dir, "", "cas", "has", workflowHash); r.code != 0 {
		t.Errorf("cas has %s after reindex: exit %d, want 0", workflowHash, r.code)
	}
	chaintest.Fsck(t, dir)
}

// TestAmbiguousPrefix stores two texts whose aliases share four characters.
func TestAmbiguousPrefix(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	store := chaintest.Open(t, dir).Store
	ts, err := store.TextSchema()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	var prefix string
	for i := 0; prefix == ""; i++ {
		text := "text " + strconv.Itoa(i)
		blob, err := objects.EncodeNode(ts.Alias, text)
		if err != nil {
			t.Fatal(err)
		}
		p := string(objects.AliasOf(blob))[:4]
		if other, ok := seen[p]; ok {
			for _, s := range []string{other, text} {
				mustRun(t, dir, "cas", "put", "--text", s)
			}
			prefix = p
		}
		seen[p] = text
	}
	for _, verb := range []string{"get", "refs", "walk"} {
		r := run(t, dir, "", "cas", verb, prefix)
		if r.code != 1 || !regexp.MustCompile(`^error: alias prefix `+prefix+` is ambiguous: matches [0-9A-Z]{13}, [0-9A-Z]{13}\n$`).MatchString(r.err) {
			t.Errorf("cas %s %s: exit %d, stderr %q; want exit 1 and one ambiguity line", verb, prefix, r.code, r.err)
		}
	}
}

// TestOutsideRepository checks the one-line error of every command.
func TestOutsideRepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	want := "error: " + dir + ": not a git repository (run this inside a git repository, or set GIT_DIR)\n"
	for _, args := range [][]string{
		{"cas", "get", workflowHash},
		{"cas", "put", "--text", "x"},
		{"cas", "put", authorSchema, "{}"},
		{"cas", "has", workflowHash},
		{"cas", "refs", workflowHash},
		{"cas", "walk", workflowHash},
		{"cas", "reindex"},
		{"cas", "schema", "list"},
		{"cas", "schema", "get", authorSchema},
	} {
		r := run(t, dir, "", args...)
		if r.code != 1 || r.err != want {
			t.Errorf("%s: exit %d, stderr %q; want exit 1, %q", strings.Join(args, " "), r.code, r.err, want)
		}
	}
}

// TestDirFlag checks -C, before and after the command.
func TestDirFlag(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	elsewhere := t.TempDir()
	for _, args := range [][]string{
		{"-C", dir, "cas", "has", workflowHash},
		{"cas", "has", workflowHash, "-C", dir},
		{"cas", "put", "-C", dir, authorSchema, "author-output.json"},
	} {
		if r := run(t, elsewhere, "", args...); r.code != 0 {
			t.Errorf("%s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.err)
		}
	}
}

// TestJSONFields pins the field names, in order, of every shape.
func TestJSONFields(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"cas", "get", workflowHash}, []string{"hash", "type", "payload"}},
		{[]string{"cas", "put", "--text", "x"}, []string{"hash"}},
		{[]string{"cas", "has", workflowHash}, []string{"exists"}},
		{[]string{"cas", "has", "0000000000000"}, []string{"exists"}},
		{[]string{"cas", "refs", workflowHash}, []string{"refs"}},
		{[]string{"cas", "walk", workflowHash}, []string{"hashes"}},
		{[]string{"cas", "reindex"}, []string{"aliases"}},
		{[]string{"cas", "schema", "list"}, []string{"hash", "title"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, dir, "", append(tt.args, "--format", "json")...)
			if r.out == "" {
				t.Fatalf("no output; exit %d: %s", r.code, r.err)
			}
			if got := keys(t, r.out); !slices.Equal(got, tt.want) {
				t.Errorf("fields = %v, want %v", got, tt.want)
			}
		})
	}
}

// keys returns the top-level keys of the JSON object raw (or of its first
// element, for an array), in output order.
func keys(t *testing.T, raw string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok == json.Delim('[') {
		if tok, err = dec.Token(); err != nil {
			t.Fatal(err)
		}
	}
	if tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
