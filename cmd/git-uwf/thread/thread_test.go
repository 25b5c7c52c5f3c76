package thread_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdtest"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const loop = `name: loop
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

// keys decodes a JSON object and returns its field names in order.
func keys(t *testing.T, out string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %v\n%s", err, out)
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

// TestJSONFields pins the machine-readable shapes of the thread commands.
func TestJSONFields(t *testing.T) {
	dir := chaintest.InitRepo(t)
	repo := chaintest.Open(t, dir)
	if _, _, err := repo.RegisterWorkflow(t.Context(), chaintest.Workflow(t, "loop", loop)); err != nil {
		t.Fatal(err)
	}
	startOut := cmdtest.MustRun(t, dir, now, "thread", "start", "loop", "-p", "task one", "--format", "json")
	var started struct{ Thread chain.ThreadID }
	if err := json.Unmarshal([]byte(startOut), &started); err != nil {
		t.Fatal(err)
	}
	step := chaintest.Step(t, repo, started.Thread, "developer", map[string]any{"$status": "review_needed", "summary": "s"}, "body")
	id := string(started.Thread)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"start", nil, "thread workflow workflowHash head commit currentRole"},
		{"show", []string{"thread", "show", id}, "thread workflow workflowHash head headCommit status currentRole nextPrompt suspendedRole suspendMessage suspendedChild error steps prompt cwd branch startCommit createdAt updatedAt failedAttempts hint done parent children forkedFrom"},
		{"steps", []string{"thread", "steps", id}, "thread workflow steps"},
		{"read", []string{"thread", "read", id}, "markdown"},
		{"step show", []string{"step", "show", string(step.Node.Alias)}, "hash commit kind node output body"},
		{"fork", []string{"thread", "fork", step.Commit.String()}, "forkedFrom thread"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := startOut
			if tt.args != nil {
				out = cmdtest.MustRun(t, dir, now, append(tt.args, "--format", "json")...)
			}
			if got := strings.Join(keys(t, out), " "); got != tt.want {
				t.Errorf("fields:\n got %s\nwant %s", got, tt.want)
			}
			// YAML has the same fields in the same order.
			if tt.args != nil {
				y := cmdtest.MustRun(t, dir, now, append(tt.args, "--format", "yaml")...)
				first := strings.SplitN(strings.Fields(tt.want)[0], " ", 2)[0]
				if !strings.HasPrefix(y, first+":") {
					t.Errorf("yaml starts %q, want field %s first", y[:min(40, len(y))], first)
				}
			}
		})
	}
	list := cmdtest.MustRun(t, dir, now, "thread", "list", "--format", "json")
	var items []map[string]any
	if err := json.Unmarshal([]byte(list), &items); err != nil || len(items) != 3 {
		t.Fatalf("list: want the thread and its two forks (json and yaml runs), got %d: %v\n%s", len(items), err, list)
	}
	for _, k := range []string{"thread", "workflow", "workflowHash", "head", "headCommit", "status", "currentRole", "prompt", "createdAt", "updatedAt"} {
		if _, ok := items[0][k]; !ok {
			t.Errorf("list item lacks %q", k)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	dir := chaintest.InitRepo(t)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"thread", "start", "x"}, 2, "missing --prompt"},
		{[]string{"thread", "show"}, 2, "missing thread id"},
		{[]string{"thread", "show", "a", "b"}, 2, "expected one thread id"},
		{[]string{"thread", "step", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "-c", "0"}, 2, "--count must be a positive number"},
		{[]string{"thread", "list", "--status", "weird"}, 2, "unknown status"},
		{[]string{"thread", "read", "x", "--quota", "0"}, 2, "--quota must be positive"},
		{[]string{"thread", "show", "../../HEAD"}, 1, "invalid thread id"},
		{[]string{"step", "show", "ZZ"}, 1, "at least 4 characters"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := cmdtest.Run(t, dir, now, tt.args...)
			if r.Code != tt.code || !strings.Contains(r.Err, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d containing %q", r.Code, r.Err, tt.code, tt.want)
			}
		})
	}
}

func TestStartRedactsSecrets(t *testing.T) {
	dir := chaintest.InitRepo(t)
	repo := chaintest.Open(t, dir)
	if _, _, err := repo.RegisterWorkflow(t.Context(), chaintest.Workflow(t, "loop", loop)); err != nil {
		t.Fatal(err)
	}
	r := cmdtest.Run(t, dir, now, "thread", "start", "loop", "-p", "deploy with AKIAIOSFODNN7EXAMPLE please")
	if r.Code != 0 || !strings.Contains(r.Err, "redacted 1 aws-access-key") {
		t.Fatalf("exit %d: %s", r.Code, r.Err)
	}
	list := cmdtest.MustRun(t, dir, now, "thread", "list", "--format", "json")
	if strings.Contains(list, "AKIAIOSFODNN7EXAMPLE") || !strings.Contains(list, "[REDACTED:aws-access-key]") {
		t.Fatalf("prompt stored unredacted: %s", list)
	}
}

func TestBadFlagValues(t *testing.T) {
	dir := chaintest.InitRepo(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"thread", "step", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--timeout", "5"}, `--timeout: invalid value "5" (want a duration such as 90s or 30m)`},
		{[]string{"thread", "read", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--quota", "abc"}, `--quota: invalid value "abc" (want a whole number)`},
		{[]string{"thread", "step", "--all", "--cwd", "sub"}, "--cwd does not go with --all"},
	} {
		r := cmdtest.Run(t, dir, now, tt.args...)
		if r.Code != 2 || !strings.Contains(r.Err, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", tt.args, r.Code, r.Err, tt.want)
		}
	}
}

// TestStartRecordsRelativeCwd: start records the thread's directory from
// the top of the work tree, and refuses one outside it unless asked.
func TestStartRecordsRelativeCwd(t *testing.T) {
	dir := chaintest.InitRepo(t)
	repo := chaintest.Open(t, dir)
	if _, _, err := repo.RegisterWorkflow(t.Context(), chaintest.Workflow(t, "loop", loop)); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pkg", "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "away")); err != nil {
		t.Fatal(err)
	}
	realOutside, err := filepath.EvalSymlinks(outside)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		in     string // where the command runs, relative to dir
		args   []string
		want   string // the recorded cwd; "" when refused
		errHas string
	}{
		{name: "top", in: ".", want: "."},
		{name: "subdirectory", in: "pkg/api", want: "pkg/api"},
		{name: "relative --cwd", in: "pkg", args: []string{"--cwd", "api"}, want: "pkg/api"},
		{name: "absolute --cwd inside", in: ".", args: []string{"--cwd", filepath.Join(dir, "pkg")}, want: "pkg"},
		{name: "--cwd up to the top", in: "pkg/api", args: []string{"--cwd", "../.."}, want: "."},
		{name: "--cwd outside", in: ".", args: []string{"--cwd", outside}, errHas: "outside the work tree"},
		{name: "--cwd above the top", in: ".", args: []string{"--cwd", ".."}, errHas: "--outside-worktree"},
		{name: "--cwd through a link out", in: ".", args: []string{"--cwd", "away"}, errHas: "outside the work tree"},
		{name: "--cwd missing", in: ".", args: []string{"--cwd", "nope"}, errHas: "not a directory"},
		{name: "--cwd outside with consent", in: ".", args: []string{"--cwd", outside, "--outside-worktree"}, want: realOutside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"thread", "start", "loop", "-p", "task", "--format", "json"}, tt.args...)
			r := cmdtest.Run(t, filepath.Join(dir, tt.in), now, args...)
			if tt.errHas != "" {
				if r.Code != 1 || !strings.Contains(r.Err, tt.errHas) {
					t.Fatalf("exit %d, stderr %q; want exit 1 with %q", r.Code, r.Err, tt.errHas)
				}
				return
			}
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Err)
			}
			var started struct{ Thread chain.ThreadID }
			if err := json.Unmarshal([]byte(r.Out), &started); err != nil {
				t.Fatal(err)
			}
			th, err := repo.Thread(t.Context(), started.Thread)
			if err != nil {
				t.Fatal(err)
			}
			if th.Start.Cwd != tt.want {
				t.Errorf("recorded cwd %q, want %q", th.Start.Cwd, tt.want)
			}
		})
	}
}

// TestListMarksForks checks that thread list marks exactly the threads
// whose history shares steps with another thread: forks and what they
// were forked from, whether the fork has moved on or not.
func TestListMarksForks(t *testing.T) {
	dir := chaintest.InitRepo(t)
	repo := chaintest.Open(t, dir)
	if _, _, err := repo.RegisterWorkflow(t.Context(), chaintest.Workflow(t, "loop", loop)); err != nil {
		t.Fatal(err)
	}
	start := func(task string) chain.ThreadID {
		t.Helper()
		var out struct{ Thread chain.ThreadID }
		if err := json.Unmarshal([]byte(cmdtest.MustRun(t, dir, now, "thread", "start", "loop", "-p", task, "--format", "json")), &out); err != nil {
			t.Fatal(err)
		}
		return out.Thread
	}
	fork := func(commit string) chain.ThreadID {
		t.Helper()
		var out struct{ Thread chain.ThreadID }
		if err := json.Unmarshal([]byte(cmdtest.MustRun(t, dir, now, "thread", "fork", commit, "--format", "json")), &out); err != nil {
			t.Fatal(err)
		}
		return out.Thread
	}
	developed := map[string]any{"$status": "review_needed", "summary": "s"}

	alone := start("alone")
	chaintest.Step(t, repo, alone, "developer", developed, "body")
	// A fork of the head that has not moved: both refs on one commit.
	atHead := start("at head")
	atHeadStep := chaintest.Step(t, repo, atHead, "developer", developed, "body")
	atHeadFork := fork(atHeadStep.Commit.String())
	// A fork of an inner step; both went on.
	inner := start("inner")
	innerStep := chaintest.Step(t, repo, inner, "developer", developed, "body")
	chaintest.Step(t, repo, inner, "reviewer", map[string]any{"$status": "rejected", "comments": "c"}, "")
	innerFork := fork(innerStep.Commit.String())
	chaintest.Step(t, repo, innerFork, "reviewer", map[string]any{"$status": "approved"}, "")
	// A fork of the start commit.
	root := start("root")
	rootThread, err := repo.Thread(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	rootFork := fork(rootThread.Head.Commit.String())
	fresh := start("fresh")

	want := map[chain.ThreadID]bool{alone: false, fresh: false, atHead: true, atHeadFork: true,
		inner: true, innerFork: true, root: true, rootFork: true}
	var items []struct {
		Thread chain.ThreadID
		Fork   bool
	}
	out := cmdtest.MustRun(t, dir, now, "thread", "list", "--all", "--format", "json")
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatal(err)
	}
	if len(items) != len(want) {
		t.Fatalf("listed %d threads, want %d:\n%s", len(items), len(want), out)
	}
	for _, it := range items {
		if it.Fork != want[it.Thread] {
			t.Errorf("thread %s: fork = %v, want %v", it.Thread, it.Fork, want[it.Thread])
		}
	}

	text := cmdtest.MustRun(t, dir, now, "thread", "list", "--all")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if !strings.Contains(lines[0], "FORK") {
		t.Fatalf("no FORK column:\n%s", text)
	}
	for _, line := range lines[1:] {
		fields := strings.Fields(line)
		id := chain.ThreadID(fields[0])
		if marked := slices.Contains(fields, "fork"); marked != want[id] {
			t.Errorf("text line of %s marked %v, want %v: %q", id, marked, want[id], line)
		}
	}
}
