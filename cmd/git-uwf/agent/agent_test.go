package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/agent"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/engine"
	"github.com/git-uwf/git-uwf/internal/fakemodel"
	"github.com/git-uwf/git-uwf/internal/llmwire/llmwiretest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

// binary is git-uwf built once for the tests that spawn it.
var binary string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "git-uwf-agent-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "git-uwf")
	out, err := exec.Command("go", "build", "-o", binary, "github.com/git-uwf/git-uwf/cmd/git-uwf").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build git-uwf: %v\n%s", err, out)
		return 1
	}
	// git-uwf-llm beside it sends the llm agent's and the doctor's HTTP
	// requests, as make install puts it.
	if _, err := llmwiretest.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

const planWork = chaintest.PlanWorkYAML

// repoWithThread makes a repository with plan-work and one thread.
func repoWithThread(t *testing.T) (string, *chain.Repo, chain.ThreadID) {
	t.Helper()
	dir := chaintest.InitRepo(t)
	r := chaintest.Open(t, dir)
	info, _, err := r.RegisterWorkflow(t.Context(), chaintest.Workflow(t, "plan-work", planWork))
	if err != nil {
		t.Fatal(err)
	}
	th, err := r.StartThread(t.Context(), info, "Write the parser.", dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, r, th.ID
}

// env is a test environment: the process's, with HOME and XDG_CONFIG_HOME
// in a temp dir, plus kv.
func testEnv(t *testing.T, kv ...string) []string {
	t.Helper()
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	return append(env, kv...)
}

func lookup(env []string, k string) string {
	v := ""
	for _, kv := range env {
		if name, val, ok := strings.Cut(kv, "="); ok && name == k {
			v = val
		}
	}
	return v
}

type result struct {
	code        int
	out, errOut string
}

// run runs git-uwf in-process in dir.
func run(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	return runAs(t, binary, dir, env, stdin, args...)
}

// runAs is run with exe as the running git-uwf executable.
func runAs(t *testing.T, exe, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{
		IO:         ios,
		Getwd:      func() (string, error) { return dir, nil },
		Getenv:     func(k string) string { return lookup(env, k) },
		Environ:    func() []string { return env },
		Now:        time.Now,
		Executable: func() (string, error) { return exe, nil },
	}
	f.Repo = cmdutil.OpenRepoOnce(f)
	code := root.Run(t.Context(), f, append([]string{"git-uwf"}, args...))
	return result{code, out.String(), errOut.String()}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

const plannerAnswer = `cat >/dev/null; printf -- "---\n\$status: planned\nplan: p\n---\nok"`

func TestBuiltinAgentsInProcess(t *testing.T) {
	dir, r, id := repoWithThread(t)
	script := filepath.Join(dir, "script.yaml")
	writeFile(t, script, "steps:\n  - role: planner\n    output: \"---\\n$status: planned\\nplan: mocked\\n---\\n\"\n")
	tests := []struct {
		name     string
		stdin    string
		args     []string
		env      []string
		wantCode int
		wantErr  string
	}{
		{name: "pipe with a command after --", args: []string{"agent", "pipe", "--", "sh", "-c", plannerAnswer, string(id), "planner"}},
		{name: "pipe with flags", args: []string{"agent", "pipe", "--timeout=1m", "--", "sh", "-c", plannerAnswer, string(id), "planner"}},
		{name: "pipe failure", args: []string{"agent", "pipe", "--", "sh", "-c", "cat >/dev/null; echo 'model overloaded' >&2; exit 4", string(id), "planner"},
			wantCode: 1, wantErr: "exited with status 4: model overloaded"},
		{name: "pipe unknown flag", args: []string{"agent", "pipe", "--colour", "sh", string(id), "planner"}, wantCode: 2, wantErr: "unknown flag: --colour"},
		{name: "pipe unknown preset", args: []string{"agent", "pipe", "--preset", "nope", string(id), "planner"}, wantCode: 2, wantErr: `unknown pipe preset "nope"`},
		{name: "pipe without protocol args", args: []string{"agent", "pipe", "--", "sh"}, wantCode: 2, wantErr: "missing <thread-id> <role>"},
		{name: "mock", args: []string{"agent", "mock", "--script", "script.yaml", string(id), "planner"}},
		{name: "mock from env", args: []string{"agent", "mock", string(id), "planner"}, env: []string{"UWF_MOCK_SCRIPT=" + script}},
		{name: "mock wrong role", args: []string{"agent", "mock", "--script", script, string(id), "worker"}, wantCode: 1,
			wantErr: `mock script step 1 expected role "planner", but the moderator asked for "worker"`},
		{name: "mock without script", args: []string{"agent", "mock", string(id), "planner"}, wantCode: 1, wantErr: "needs a script"},
		{name: "human from stdin", stdin: "---\n$status: planned\nplan: typed\n---\n", args: []string{"agent", "human", string(id), "planner"}},
		{name: "role disagrees with env", args: []string{"agent", "mock", "--script", script, string(id), "planner"}, env: []string{"UWF_ROLE=worker"},
			wantCode: 1, wantErr: "disagrees"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t, append([]string{"UWF_EDGE_PROMPT=Plan the task."}, tt.env...)...)
			res := run(t, dir, env, tt.stdin, tt.args...)
			if res.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", res.code, tt.wantCode, res.out, res.errOut)
			}
			if tt.wantErr != "" {
				if !strings.Contains(res.errOut, tt.wantErr) {
					t.Fatalf("stderr %q does not contain %q", res.errOut, tt.wantErr)
				}
				return
			}
			out, err := agentkit.ParseAdapterOutput([]byte(res.out))
			if err != nil {
				t.Fatalf("stdout %q: %v", res.out, err)
			}
			if out.Error != "" || out.Role != "planner" || out.Status != "planned" {
				t.Fatalf("adapter output %+v", out)
			}
			ref, err := out.StepRef()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Store.Get(ref.Alias); err != nil {
				t.Fatalf("step %s not stored: %v", ref.Alias, err)
			}
		})
	}
}

// TestEngineEndToEnd runs a whole thread with the engine, the built
// git-uwf binary as the agent, and the agents resolved from the
// configuration: the built-in mock for the planner (script from the
// environment) and a user alias for the worker (override).
func TestEngineEndToEnd(t *testing.T) {
	dir, r, id := repoWithThread(t)
	// The worker's script (alias "scripted", chosen by the team override)
	// and the default mock's script (from UWF_MOCK_SCRIPT) disagree about
	// the worker, so the statuses show which agent ran.
	writeFile(t, filepath.Join(dir, "script.yaml"), `steps:
  - role: planner
    output: {$status: planned, plan: wrong agent}
  - role: worker
    output: "no frontmatter"
    corrections: ["---\n$status: blocked\nnotes: need input\n---\n"]
  - role: planner
    output: {$status: planned, plan: wrong agent}
  - role: worker
    output: {$status: done, notes: all good}
`)
	writeFile(t, filepath.Join(dir, "default.yaml"), `steps:
  - role: planner
    output: {$status: planned, plan: split it}
    body: The plan.
  - role: worker
    output: {$status: done, notes: wrong agent}
  - role: planner
    output: {$status: planned, plan: smaller steps}
  - role: worker
    output: {$status: done, notes: wrong agent}
`)
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "uwf", "config.yaml"), `defaultAgent: mock
agents:
  scripted: {command: "git uwf agent mock --script script.yaml", timeout: 1m}
`)
	writeFile(t, filepath.Join(dir, ".uwf", "config.yaml"), "overrides: {plan-work: {worker: scripted}}\n")
	getenv := func(k string) string {
		switch k {
		case "XDG_CONFIG_HOME":
			return home
		case "UWF_MOCK_SCRIPT":
			return filepath.Join(dir, "default.yaml")
		}
		return ""
	}
	cfg, err := config.Load(config.PathsFor(r.Info, getenv), getenv)
	if err != nil {
		t.Fatal(err)
	}
	// The user runs the steps in dir: the configured relative --script
	// resolves there.
	eng := &engine.Engine{Repo: r, Agent: cfg.ResolveAgent, Self: binary, Invocation: dir}
	var notes, statuses []string
	for i := 0; i < 4; i++ {
		res, err := eng.Step(t.Context(), id, engine.StepOptions{})
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		statuses = append(statuses, fmt.Sprint(res.Output["$status"]))
		notes = append(notes, fmt.Sprintf("%v %v", res.Output["plan"], res.Output["notes"]))
		if i == 3 && res.Status != chain.StatusCompleted {
			t.Fatalf("after the last step the thread is %s", res.Status)
		}
	}
	if got := strings.Join(notes, ","); got != "split it <nil>,<nil> need input,smaller steps <nil>,<nil> all good" {
		t.Errorf("outputs = %s", got)
	}
	if got := strings.Join(statuses, ","); got != "planned,blocked,planned,done" {
		t.Errorf("statuses = %s", got)
	}
	if _, err := eng.Step(t.Context(), id, engine.StepOptions{}); err == nil {
		t.Error("a completed thread stepped again")
	}
	log := chaintest.Git(t, dir, "log", "--format=%s", "refs/uwf/threads/"+string(id))
	if !strings.Contains(log, "worker: blocked") {
		t.Errorf("thread log:\n%s", log)
	}
	chaintest.Fsck(t, dir)
}

func TestAgentList(t *testing.T) {
	dir := chaintest.InitRepo(t)
	env := testEnv(t)
	writeFile(t, filepath.Join(lookup(env, "XDG_CONFIG_HOME"), "uwf", "config.yaml"), "defaultAgent: mine\nagents:\n  mine: {command: [\"./mine.sh\", \"--fast\"]}\n")
	res := run(t, dir, env, "", "agent", "list", "--format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.errOut)
	}
	var list []agent.AliasInfo
	if err := json.Unmarshal([]byte(res.out), &list); err != nil {
		t.Fatal(err)
	}
	byAlias := map[string]agent.AliasInfo{}
	for _, a := range list {
		byAlias[a.Alias] = a
	}
	if m := byAlias["mine"]; !m.Default || m.Scope != "user" || !strings.HasSuffix(m.Where, "config.yaml:3") || m.Command != "./mine.sh --fast" {
		t.Errorf("mine = %+v", m)
	}
	for _, name := range []string{"mock", "human", "llm", "claude", "codex", "gemini", "qwen", "opencode", "cursor-agent", "aider", "ollama", "llm-cli", "amp"} {
		if a, ok := byAlias[name]; !ok || a.Scope != "built-in" {
			t.Errorf("built-in alias %s: %+v", name, a)
		}
	}
	res = run(t, dir, env, "", "agent", "list")
	if !strings.Contains(res.out, "mine (default)") || !strings.Contains(res.out, "git uwf agent pipe --preset claude") {
		t.Errorf("text list:\n%s", res.out)
	}
}

func TestAgentDoctor(t *testing.T) {
	dir := chaintest.InitRepo(t)
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "claude"), "#!/bin/sh\n[ \"$1\" = --version ] && echo '2.1.330 (Claude Code)'\n")
	writeFile(t, filepath.Join(bin, "gemini"), "#!/bin/sh\necho 0.61.0\n")
	writeFile(t, filepath.Join(dir, "mine.sh"), "#!/bin/sh\necho should not run >&2; exit 9\n")
	model := httptest.NewServer(http.NotFoundHandler()) // any HTTP answer is reachable
	defer model.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	env := testEnv(t, "PATH="+bin, "ANTHROPIC_BASE_URL="+model.URL)
	writeFile(t, filepath.Join(lookup(env, "XDG_CONFIG_HOME"), "uwf", "config.yaml"), "defaultAgent: codex\nagents:\n  mine: {command: ./mine.sh}\n"+
		"  gemini: {command: git uwf agent pipe --preset gemini, env: {GOOGLE_GEMINI_BASE_URL: \""+closed.URL+"\"}}\n")
	res := run(t, dir, env, "", "agent", "doctor", "--format", "json", "claude", "codex", "mine", "mock", "gemini")
	if res.code != 1 || !strings.Contains(res.errOut, `the default agent "codex" needs codex, which is not installed`) {
		t.Fatalf("exit %d, stderr %q", res.code, res.errOut)
	}
	var checks []agent.Check
	if err := json.Unmarshal([]byte(res.out), &checks); err != nil {
		t.Fatalf("%v\n%s", err, res.out)
	}
	if c := checks[0]; c.Reachable == nil || !*c.Reachable || c.Endpoint != model.URL || c.EndpointFrom != "$ANTHROPIC_BASE_URL" {
		t.Errorf("claude endpoint check = %+v", c)
	}
	if c := checks[4]; c.Reachable == nil || *c.Reachable || c.Endpoint != closed.URL || !strings.Contains(c.Unreachable, "refused") {
		t.Errorf("gemini endpoint check (the alias's env, a closed port) = %+v", c)
	}
	checks[0].Reachable = nil
	want := []agent.Check{
		{Alias: "claude", Command: "git uwf agent pipe --preset claude", Binary: "claude", Found: true, Path: filepath.Join(bin, "claude"), Version: "2.1.330 (Claude Code)",
			Endpoint: model.URL, EndpointFrom: "$ANTHROPIC_BASE_URL"},
		{Alias: "codex", Command: "git uwf agent pipe --preset codex", Binary: "codex", Error: "not found on PATH"},
		{Alias: "mine", Command: "./mine.sh", Binary: "./mine.sh", Found: true, Path: filepath.Join(dir, "mine.sh")},
	}
	for i, w := range want {
		if checks[i] != w {
			t.Errorf("check %d = %+v\nwant %+v", i, checks[i], w)
		}
	}
	if m := checks[3]; m.Binary != "git-uwf" || !m.Found || !strings.HasPrefix(m.Version, "git-uwf version") {
		t.Errorf("mock check = %+v", m)
	}
	res = run(t, dir, env, "", "agent", "doctor", "--offline", "claude", "gemini")
	if res.code != 0 || !strings.Contains(res.out, model.URL+" (not checked)") || !strings.Contains(res.out, closed.URL+" (not checked)") {
		t.Errorf("doctor --offline: exit %d\n%s", res.code, res.out)
	}
	if res := run(t, dir, env, "", "agent", "doctor", "nope"); res.code != 2 {
		t.Errorf("unknown alias: exit %d", res.code)
	}
}

// TestBinaryPipe runs the built binary as the engine would, with a command
// after -- (flags after the command are the command's).
func TestBinaryPipe(t *testing.T) {
	dir, _, id := repoWithThread(t)
	cmd := exec.CommandContext(context.Background(), binary, "agent", "pipe", "--", "sh", "-c", plannerAnswer+` --not-a-flag`, string(id), "planner")
	cmd.Dir = dir
	cmd.Env = testEnv(t, "UWF_EDGE_PROMPT=Plan the task.")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	out, err := agentkit.ParseAdapterOutput(stdout.Bytes())
	if err != nil || out.StepHash == "" {
		t.Fatalf("%+v %v", out, err)
	}
}

// lone returns a git-uwf installed without git-uwf-llm beside it: a
// symbolic link to binary in a directory of its own does not do, as the
// link is resolved, so it is a copy.
func lone(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "git-uwf")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestLLMAgentThroughProgram: the llm agent, run by `thread step` inside
// git-uwf and as `agent llm`, sends its request through git-uwf-llm
// beside git-uwf; without that program both fail saying how to install
// it, and so does the doctor's probe.
func TestLLMAgentThroughProgram(t *testing.T) {
	srv, err := fakemodel.New(func(r fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "---\n$status: planned\nplan: from the model\n---\nThe plan."}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	llm := "git uwf agent llm --base-url " + srv.URL + "/v1 --model tiny"

	dir, _, id := repoWithThread(t)
	env := testEnv(t)
	res := run(t, dir, env, "", "thread", "step", "--agent", llm, string(id))
	if res.code != 0 {
		t.Fatalf("thread step: exit %d\n%s", res.code, res.errOut)
	}
	if n := len(srv.ModelRequests()); n != 1 {
		t.Errorf("thread step asked the model %d times, want once", n)
	}
	dir, _, id = repoWithThread(t)
	res = run(t, dir, testEnv(t, "UWF_EDGE_PROMPT=Plan."), "", "agent", "llm", "--base-url", srv.URL+"/v1", "--model", "tiny", string(id), "planner")
	if out, err := agentkit.ParseAdapterOutput([]byte(res.out)); res.code != 0 || err != nil || out.StepHash == "" {
		t.Fatalf("agent llm: exit %d, %+v, %v\n%s", res.code, out, err, res.errOut)
	}
	if n := len(srv.ModelRequests()); n != 2 {
		t.Errorf("the model was asked %d times in all, want twice", n)
	}

	alone := lone(t)
	missing := filepath.Join(filepath.Dir(alone), "git-uwf-llm")
	for _, args := range [][]string{
		{"thread", "step", "--agent", llm, string(id)},
		{"agent", "llm", "--base-url", srv.URL + "/v1", "--model", "tiny", string(id), "planner"},
	} {
		res := runAs(t, alone, dir, testEnv(t, "UWF_EDGE_PROMPT=Plan."), "", args...)
		if res.code == 0 || !strings.Contains(res.errOut, "git-uwf-llm, which is not installed at "+missing) || !strings.Contains(res.errOut, "make install") {
			t.Errorf("%s without git-uwf-llm: exit %d\n%s", args[:2], res.code, res.errOut)
		}
	}
	if n := len(srv.ModelRequests()); n != 2 {
		t.Errorf("the model was asked %d times in all, want twice", n)
	}
	writeFile(t, filepath.Join(dir, "claude"), "#!/bin/sh\necho 2.0\n")
	res = runAs(t, alone, dir, testEnv(t, "PATH="+dir, "ANTHROPIC_BASE_URL="+srv.URL), "", "agent", "doctor", "claude")
	if res.code != 0 || !strings.Contains(res.out, srv.URL+" (not checked: ") || !strings.Contains(res.out, missing) {
		t.Errorf("doctor without git-uwf-llm: exit %d\n%s%s", res.code, res.out, res.errOut)
	}
}

// TestEngineCallTakesNothingOver runs the built binary as the engine runs
// a built-in agent, in a clone that has fetched another clone's thread:
// with the head pinned ($UWF_HEAD) the agent neither takes the fetched
// thread over nor starts a git process (the engine did the taking over,
// and the step reads no ref). Run by hand, without $UWF_HEAD, the same
// command takes it over, as every command does.
func TestEngineCallTakesNothingOver(t *testing.T) {
	ctx := t.Context()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	var threads []*chain.Thread
	for _, r := range []*chain.Repo{a, b} {
		if _, err := uwfsync.SetupRemote(ctx, r, "origin"); err != nil {
			t.Fatal(err)
		}
		info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "plan-work", planWork))
		if err != nil {
			t.Fatal(err)
		}
		th, err := r.StartThread(ctx, info, "Write the parser.", r.Info.WorkTree)
		if err != nil {
			t.Fatal(err)
		}
		threads = append(threads, th)
	}
	fetched, local := threads[0], threads[1]
	if _, err := uwfsync.Sync(ctx, a, "origin", uwfsync.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	chaintest.Git(t, repos.B, "fetch", "-q")
	script := filepath.Join(t.TempDir(), "script.yaml")
	writeFile(t, script, "steps:\n  - role: planner\n    output: {$status: planned, plan: p}\n")

	takenOver := func() bool {
		return exec.Command("git", "-C", repos.B, "rev-parse", "-q", "--verify", fetched.ID.Ref()).Run() == nil
	}
	if takenOver() {
		t.Fatal("the fetched thread was taken over before any command ran")
	}
	tests := []struct {
		name          string
		env           []string
		wantTakenOver bool
	}{
		// The engine's call comes first: the run by hand takes the thread over.
		{name: "engine's call", env: []string{"UWF_HEAD=" + local.Head.Commit.String()}},
		{name: "by hand", wantTakenOver: true},
	}
	for _, tt := range tests {
		trace := filepath.Join(t.TempDir(), "trace2.json")
		cmd := exec.CommandContext(ctx, binary, "agent", "mock", "--script", script, string(local.ID), "planner")
		cmd.Dir = repos.B
		cmd.Env = testEnv(t, append([]string{"UWF_EDGE_PROMPT=Plan the task.", "UWF_ROLE=planner", "GIT_TRACE2_EVENT=" + trace}, tt.env...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, stderr.String())
		}
		if out, err := agentkit.ParseAdapterOutput(stdout.Bytes()); err != nil || out.StepHash == "" {
			t.Fatalf("%s: adapter output %+v, %v", tt.name, out, err)
		}
		if got := takenOver(); got != tt.wantTakenOver {
			t.Errorf("%s: fetched thread taken over = %v, want %v", tt.name, got, tt.wantTakenOver)
		}
		if tt.wantTakenOver {
			continue
		}
		// Every git process the agent started wrote its start event here.
		if started := gitStarts(t, trace); len(started) > 0 {
			t.Errorf("%s: the agent started %d git processes:\n%s", tt.name, len(started), strings.Join(started, "\n"))
		}
	}
}

// gitStarts returns the command lines of the git processes that wrote a
// start event to the GIT_TRACE2_EVENT file trace (none when it is absent).
func gitStarts(t *testing.T, trace string) []string {
	t.Helper()
	data, err := os.ReadFile(trace)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var started []string
	for line := range strings.Lines(string(data)) {
		var ev struct {
			Event string   `json:"event"`
			Argv  []string `json:"argv"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		if ev.Event == "start" {
			started = append(started, strings.Join(ev.Argv, " "))
		}
	}
	return started
}
