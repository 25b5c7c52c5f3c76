package builtins_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/llmwire/llmwiretest"
)

// thread makes a repository with the plan-work workflow and one thread.
func thread(t *testing.T) (*chain.Repo, chain.ThreadID, string) {
	t.Helper()
	dir := chaintest.InitRepo(t)
	r := chaintest.Open(t, dir)
	text, err := os.ReadFile("testdata/plan-work.yaml")
	if err != nil {
		t.Fatal(err)
	}
	info, _, err := r.RegisterWorkflow(t.Context(), chaintest.Workflow(t, "plan-work", string(text)))
	if err != nil {
		t.Fatal(err)
	}
	th, err := r.StartThread(t.Context(), info, "Write the parser.", dir)
	if err != nil {
		t.Fatal(err)
	}
	return r, th.ID, dir
}

func session(t *testing.T, r *chain.Repo, id chain.ThreadID, role, dir string) *agentkit.Session {
	t.Helper()
	s, err := agentkit.NewSession(t.Context(), r, agentkit.Request{Thread: string(id), Role: role, EdgePrompt: "Plan the task.", Cwd: dir}, agentkit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fakeEnv runs the fake CLIs of testdata/bin in mode, recording calls in
// the returned directory.
func fakeEnv(t *testing.T, mode string) ([]string, string) {
	t.Helper()
	bin, err := filepath.Abs("testdata/bin")
	if err != nil {
		t.Fatal(err)
	}
	calls := t.TempDir()
	return append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "FAKE_MODE="+mode, "FAKE_DIR="+calls), calls
}

func readCall(t *testing.T, dir string, n int) (args []string, stdin string) {
	t.Helper()
	a, err := os.ReadFile(filepath.Join(dir, "call"+string(rune('0'+n))+".args"))
	if err != nil {
		t.Fatalf("call %d not recorded: %v", n, err)
	}
	s, _ := os.ReadFile(filepath.Join(dir, "call"+string(rune('0'+n))+".stdin"))
	args = strings.Split(strings.TrimSuffix(string(a), "\n"), "\n")
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	return args, string(s)
}

func TestPipePresets(t *testing.T) {
	r, id, dir := thread(t)
	s := session(t, r, id, "planner", dir)
	tests := []struct {
		preset, mode, model string
		wantArgs            []string
		wantSession         string
		wantErr             []string
		wantDetail          string
	}{
		{preset: "claude", mode: "ok", wantArgs: []string{"-p", "--output-format", "json"}, wantSession: "sess-1"},
		{preset: "claude", mode: "ok", model: "opus", wantArgs: []string{"-p", "--output-format", "json", "--model", "opus"}, wantSession: "sess-1"},
		{preset: "claude", mode: "api-error", wantErr: []string{"exited with status 1", "claude said: API Error: 500"}},
		{preset: "claude", mode: "is-error", wantErr: []string{"exited with status 1", "Failed to authenticate. API Error: 401"}},
		{preset: "claude", mode: "is-error-0", wantErr: []string{"claude reported an error: API Error: 500 overloaded"}},
		{preset: "claude", mode: "denied", wantErr: []string{"denied 1 tool use"}, wantDetail: "permissionDenials"},
		{preset: "claude", mode: "denied-ok", wantSession: "sess-1", wantDetail: "permissionDenials"},
		{preset: "claude", mode: "empty", wantErr: []string{"not claude-json", "stdout is empty"}},
		{preset: "claude", mode: "not-json", wantErr: []string{"not claude-json"}},
		{preset: "codex", mode: "ok", wantArgs: []string{"exec", "--json", "--skip-git-repo-check", "-"}, wantSession: "0199-thread", wantDetail: "errors"},
		{preset: "codex", mode: "ok", model: "gpt-x", wantArgs: []string{"exec", "--json", "--skip-git-repo-check", "-m", "gpt-x", "-"}, wantSession: "0199-thread"},
		{preset: "codex", mode: "failed", wantErr: []string{"exited with status 1", "unexpected status 401 Unauthorized: invalid key"}},
		{preset: "codex", mode: "failed-0", wantErr: []string{"codex reported an error: stream disconnected"}},
		{preset: "gemini", mode: "ok", model: "m1", wantArgs: []string{"-p", "", "-o", "json", "--skip-trust", "-m", "m1"}, wantSession: "gem-1"},
		{preset: "gemini", mode: "stderr-json", wantErr: []string{"exited with status 145", "gemini said: API key not valid"}},
		{preset: "gemini", mode: "error", wantErr: []string{"exited with status 1", "Quota exceeded"}},
		{preset: "gemini", mode: "error-0", wantErr: []string{"gemini reported an error: Quota exceeded"}},
		{preset: "gemini", mode: "silent", wantErr: []string{"exited with status 145"}},
		{preset: "qwen", mode: "ok", wantArgs: []string{"-o", "json"}, wantSession: "qw-1"},
		{preset: "qwen", mode: "no-auth", wantErr: []string{"exited with status 1", "qwen said: No auth type is selected."}},
		{preset: "qwen", mode: "stderr-json", wantErr: []string{"exited with status 1", "qwen said: [API Error: 401 invalid key]"}},
		{preset: "qwen", mode: "is-error", wantErr: []string{"qwen reported an error: [API Error: 401 invalid key]"}},
		{preset: "opencode", mode: "ok", wantArgs: []string{"run", "--format", "json"}, wantSession: "ses_abc"},
		{preset: "opencode", mode: "error", wantErr: []string{"opencode reported an error: fake failure 401"}},
		{preset: "amp", mode: "ok", wantArgs: []string{"-x", "--stream-json"}, wantSession: "T-amp"},
		{preset: "cursor-agent", mode: "ok", wantArgs: []string{"-p", "--output-format", "text", "--trust"}},
		{preset: "aider", mode: "ok", wantArgs: []string{"--message-file", "/dev/stdin", "--yes-always", "--no-pretty", "--no-stream", "--no-auto-commits", "--no-dirty-commits"}},
		{preset: "ollama", mode: "ok", model: "qwen3:8b", wantArgs: []string{"run", "qwen3:8b", "--nowordwrap", "--hidethinking"}},
		{preset: "llm-cli", mode: "ok", model: "gpt-x", wantArgs: []string{"--no-stream", "-m", "gpt-x"}},
		{preset: "llm-cli", mode: "fail", wantErr: []string{"exited with status 1", "Error: model not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.preset+"/"+tt.mode, func(t *testing.T) {
			p, err := builtins.NewPipe(tt.preset, nil, tt.model)
			if err != nil {
				t.Fatal(err)
			}
			var calls string
			p.Env, calls = fakeEnv(t, tt.mode)
			reply, err := p.Run(t.Context(), s)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; reply %+v", reply)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				out, body, err := agentkit.ExtractOutput(reply.Text, s.Schema)
				if err != nil {
					t.Fatalf("answer %q: %v", reply.Text, err)
				}
				if out["plan"] != "write it" || body != "The plan." {
					t.Errorf("answer = %v / %q", out, body)
				}
				if reply.SessionID != tt.wantSession {
					t.Errorf("session = %q, want %q", reply.SessionID, tt.wantSession)
				}
			}
			if tt.wantDetail != "" {
				if _, ok := reply.Detail[tt.wantDetail]; !ok {
					t.Errorf("detail %v has no %s", reply.Detail, tt.wantDetail)
				}
			}
			args, stdin := readCall(t, calls, 1)
			if tt.wantArgs != nil && !reflect.DeepEqual(args, tt.wantArgs) {
				t.Errorf("args = %q, want %q", args, tt.wantArgs)
			}
			if strings.TrimSpace(stdin) != strings.TrimSpace(s.Prompt) {
				t.Errorf("stdin is not the prompt:\n%s", stdin)
			}
			for _, a := range args {
				if strings.Contains(a, "Plan the task.") {
					t.Errorf("the prompt was passed as an argument: %q", a)
				}
			}
		})
	}
}

func TestPipeClaudeResume(t *testing.T) {
	r, id, dir := thread(t)
	s := session(t, r, id, "planner", dir)
	p, err := builtins.NewPipe("claude", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var calls string
	p.Env, calls = fakeEnv(t, "resume")
	out, err := agentkit.Execute(t.Context(), s, p, agentkit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Attempts != 2 || out.Extraction != "retry" || out.Status != "planned" {
		t.Fatalf("output = %+v", out)
	}
	args, stdin := readCall(t, calls, 2)
	if want := []string{"-p", "--output-format", "json", "--resume", "sess-1"}; !reflect.DeepEqual(args, want) {
		t.Errorf("correction args = %q, want %q", args, want)
	}
	if strings.Contains(stdin, "## Task") || !strings.Contains(stdin, "frontmatter") {
		t.Errorf("a resumed correction should send only the correction, got:\n%s", stdin)
	}
}

// TestPipeRelativeCommandFromInvocation: with Dir set (the directory the
// user ran git-uwf in), a relative command is that directory's program,
// not the one in the step's directory.
func TestPipeRelativeCommandFromInvocation(t *testing.T) {
	r, id, dir := thread(t)
	s := session(t, r, id, "planner", dir)
	invocation := t.TempDir()
	for d, plan := range map[string]string{dir: "from-the-step-dir", invocation: "from-the-invocation-dir"} {
		body := "#!/bin/sh\ncat >/dev/null\nprintf -- '---\\n$status: planned\\nplan: " + plan + "\\n---\\nbody'\n"
		if err := os.WriteFile(filepath.Join(d, "who.sh"), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ dir, want string }{
		{invocation, "from-the-invocation-dir"},
		{"", "from-the-step-dir"}, // run by hand in the step's directory
	} {
		p, err := builtins.NewPipe("", []string{"./who.sh"}, "")
		if err != nil {
			t.Fatal(err)
		}
		p.Dir = tt.dir
		reply, err := p.Run(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if out, _, err := agentkit.ExtractOutput(reply.Text, s.Schema); err != nil || out["plan"] != tt.want {
			t.Errorf("Dir %q: reply %q (%v), want plan %s", tt.dir, reply.Text, err, tt.want)
		}
	}
}

func TestPipeCommand(t *testing.T) {
	r, id, dir := thread(t)
	s := session(t, r, id, "planner", dir)
	script := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat > stdin.txt\nprintf -- '---\\n$status: planned\\nplan: %s\\n---\\nbody' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		argv    []string
		timeout time.Duration
		want    string
		wantErr string
	}{
		{"relative path against the step's cwd", []string{"./agent.sh", "from-arg"}, 0, "from-arg", ""},
		{"sh -c", []string{"sh", "-c", `cat >/dev/null; printf -- '---\n$status: planned\nplan: p\n---\nok'`}, 0, "p", ""},
		{"empty stdout", []string{"sh", "-c", "cat >/dev/null; echo oops >&2"}, 0, "", "printed no answer on stdout; stderr: oops"},
		{"exit code with stderr", []string{"sh", "-c", "cat >/dev/null; echo 'bad flag' >&2; exit 3"}, 0, "", "exited with status 3: bad flag"},
		{"timeout kills the group", []string{"sh", "-c", "sleep 30 & sleep 30"}, 300 * time.Millisecond, "", "timed out after 300ms"},
		{"missing command", []string{"no-such-agent-cli"}, 0, "", "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := builtins.NewPipe("", tt.argv, "")
			if err != nil {
				t.Fatal(err)
			}
			p.Timeout = tt.timeout
			start := time.Now()
			reply, err := p.Run(t.Context(), s)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				if time.Since(start) > 10*time.Second {
					t.Fatalf("took %v", time.Since(start))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := agentkit.ExtractOutput(reply.Text, s.Schema)
			if err != nil || out["plan"] != tt.want {
				t.Fatalf("reply %q: %v %v", reply.Text, out, err)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(dir, "stdin.txt")); err != nil || !strings.Contains(string(b), "## Task") {
		t.Errorf("the script did not get the prompt on stdin: %v %q", err, b)
	}
}

func TestNewPipeErrors(t *testing.T) {
	tests := []struct {
		preset string
		argv   []string
		model  string
		want   string
	}{
		{"nope", nil, "", `unknown pipe preset "nope"`},
		{"", nil, "", "needs a command"},
		{"ollama", nil, "", "needs a model"},
		{"", []string{"sh"}, "m", "has no model option"},
	}
	for _, tt := range tests {
		if _, err := builtins.NewPipe(tt.preset, tt.argv, tt.model); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewPipe(%q, %q, %q) error = %v, want %q", tt.preset, tt.argv, tt.model, err, tt.want)
		}
	}
	p, err := builtins.NewPipe("codex", []string{"my-codex", "exec", "-"}, "")
	if err != nil || p.Argv[0] != "my-codex" || p.Name() != "pipe:codex" {
		t.Fatalf("a command replaces the preset's: %+v %v", p, err)
	}
	pr, _ := builtins.LookupPreset("codex")
	if got := strings.Join(pr.Resume(pr.Argv, "T1"), " "); got != "codex exec --json --skip-git-repo-check resume T1 -" {
		t.Errorf("codex resume = %q", got)
	}
}

func TestMock(t *testing.T) {
	r, id, dir := thread(t)
	script, err := builtins.LoadMockScript("testdata/mock-script.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := &builtins.Mock{Script: script, Path: "mock-script.yaml"}

	// Step 1 is the planner's; asking for the worker fails.
	_, err = m.Run(t.Context(), session(t, r, id, "worker", dir))
	if err == nil || !strings.Contains(err.Error(), `mock script step 1 expected role "planner", but the moderator asked for "worker"`) {
		t.Fatalf("role mismatch error = %v", err)
	}
	reply, err := m.Run(t.Context(), session(t, r, id, "planner", dir))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reply.Text, "plan: write it") {
		t.Fatalf("step 1 = %q", reply.Text)
	}
	chaintest.Step(t, r, id, "planner", map[string]any{"$status": "planned", "plan": "write it"}, "")

	s := session(t, r, id, "worker", dir)
	reply, err = m.Run(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	out, body, err := agentkit.ExtractOutput(reply.Text, s.Schema)
	if err != nil || out["$status"] != "done" || out["notes"] != "all good" || body != "Did it." {
		t.Fatalf("mapping output: %q → %v %q %v", reply.Text, out, body, err)
	}
	if reply.Detail["stepIndex"] != 1 {
		t.Errorf("detail = %v", reply.Detail)
	}
	c1, _ := m.Correct(t.Context(), s, reply, "fix it")
	c2, _ := m.Correct(t.Context(), s, c1, "fix it")
	if !strings.Contains(c1.Text, "first correction") || c2.Text != c1.Text {
		t.Errorf("corrections = %q, %q", c1.Text, c2.Text)
	}
	chaintest.Step(t, r, id, "worker", map[string]any{"$status": "blocked", "notes": "x"}, "")
	_, err = m.Run(t.Context(), session(t, r, id, "planner", dir))
	if err == nil || !strings.Contains(err.Error(), "has 2 step(s) and the thread already has 2") {
		t.Fatalf("past the end: %v", err)
	}
}

func TestMockScriptErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, text, want string }{
		{"no steps", "steps: []\n", "has no steps"},
		{"no role", "steps:\n  - output: x\n", "step has no role"},
		{"no output", "steps:\n  - role: a\n", "step has no output"},
		{"unknown field", "steps:\n  - role: a\n    output: x\n    outptu: y\n", "outptu"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name+".yaml")
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := builtins.LoadMockScript(path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error = %v, want %q", tt.name, err, tt.want)
		}
	}
	getenv := func(k string) string {
		if k == builtins.EnvMockScript {
			return "env.yaml"
		}
		return ""
	}
	for _, c := range []struct{ flag, want string }{{"s.yaml", "/cwd/s.yaml"}, {"/abs/s.yaml", "/abs/s.yaml"}, {"", "/cwd/env.yaml"}} {
		if got, err := builtins.ResolveMockScript(c.flag, "/cwd", getenv); err != nil || got != c.want {
			t.Errorf("ResolveMockScript(%q) = %q, %v; want %q", c.flag, got, err, c.want)
		}
	}
	if _, err := builtins.ResolveMockScript("", "/cwd", func(string) string { return "" }); err == nil {
		t.Error("no script and no env: no error")
	}
}

func TestHuman(t *testing.T) {
	r, id, dir := thread(t)
	s := session(t, r, id, "planner", dir)
	noTTY := func() (*os.File, error) { return nil, errors.New("no terminal") }
	editor := func(t *testing.T, body string) string {
		path := filepath.Join(t.TempDir(), "editor.sh")
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Run("stdin", func(t *testing.T) {
		h := &builtins.Human{Stdin: strings.NewReader("---\n$status: planned\nplan: by hand\n---\nMine.\n"), OpenTerminal: noTTY}
		reply, err := h.Run(t.Context(), s)
		if err != nil || !strings.Contains(reply.Text, "plan: by hand") || reply.Detail["input"] != "stdin" {
			t.Fatalf("%+v %v", reply, err)
		}
		if _, err := h.Correct(t.Context(), s, reply, "missing field"); err == nil || !strings.Contains(err.Error(), "missing field") {
			t.Fatalf("correct from stdin: %v", err)
		}
	})
	t.Run("empty stdin without terminal", func(t *testing.T) {
		h := &builtins.Human{Stdin: strings.NewReader(""), OpenTerminal: noTTY, Editor: "true"}
		if _, err := h.Run(t.Context(), s); !errors.Is(err, builtins.ErrNoAnswer) {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("editor", func(t *testing.T) {
		// The editor checks the template, then fills it in above the scissors.
		ed := editor(t, `f=$1
grep -q '^\$status:   # required; one of: planned' "$f" || { echo "no template" >&2; exit 1; }
grep -q '^# ## Task' "$f" || { echo "no instructions" >&2; exit 1; }
{ printf -- '---\n$status: planned\nplan: edited\n---\nBy editor.\n'; sed -n '/>8/,$p' "$f"; } > "$f.new" && mv "$f.new" "$f"`)
		h := &builtins.Human{StdinTTY: true, Editor: ed, OpenTerminal: noTTY}
		reply, err := h.Run(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if reply.Text != "---\n$status: planned\nplan: edited\n---\nBy editor." {
			t.Fatalf("answer = %q", reply.Text)
		}
	})
	t.Run("unchanged template", func(t *testing.T) {
		h := &builtins.Human{StdinTTY: true, Editor: "true", OpenTerminal: noTTY}
		if _, err := h.Run(t.Context(), s); !errors.Is(err, builtins.ErrNoAnswer) || err.Error() != "no answer given" {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("editor fails", func(t *testing.T) {
		h := &builtins.Human{StdinTTY: true, Editor: "false", OpenTerminal: noTTY}
		if _, err := h.Run(t.Context(), s); err == nil || !strings.Contains(err.Error(), "editor false") {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("correction shows the problems", func(t *testing.T) {
		ed := editor(t, `grep -q '^# plan is required' "$1" || exit 1; grep -q '^\$status: planned$' "$1" || exit 1; printf -- '---\n$status: planned\nplan: fixed\n---\n' > "$1"`)
		h := &builtins.Human{StdinTTY: true, Editor: ed, OpenTerminal: noTTY}
		reply, err := h.Correct(t.Context(), s, agentkit.Reply{Text: "---\n$status: planned\n---\n"}, "plan is required")
		if err != nil || !strings.Contains(reply.Text, "plan: fixed") {
			t.Fatalf("%+v %v", reply, err)
		}
	})
}

func TestTemplate(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"oneOf": []any{
			map[string]any{"properties": map[string]any{"$status": map[string]any{"const": "approved"}}},
			map[string]any{"properties": map[string]any{"$status": map[string]any{"const": "rejected"}, "comments": map[string]any{"type": "string"}}},
		},
		"properties": map[string]any{"score": map[string]any{"type": []any{"integer", "null"}}, "ok": map[string]any{"type": "boolean"}},
		"required":   []any{"$status"},
	}
	got := builtins.Template(schema)
	for _, want := range []string{"$status:   # required; one of: approved | rejected\n", "comments:   # string\n", "score:   # integer or null\n", "ok:   # boolean\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("template lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(got, "---\n") || !strings.Contains(got, "\n---\n") {
		t.Errorf("not a frontmatter block:\n%s", got)
	}
}

func TestLLM(t *testing.T) {
	r, id, dir := thread(t)
	s := session(t, r, id, "planner", dir)
	srv := fakeLLM(t, []string{"no frontmatter at all", "---\n$status: planned\nplan: from the model\n---\nok"})
	program, err := llmwiretest.Build(t.TempDir()) // the program git-uwf sends the requests through
	if err != nil {
		t.Fatal(err)
	}
	l := &builtins.LLM{Endpoint: agentkit.LLMEndpoint{BaseURL: srv.URL + "/v1", Model: "tiny", APIKey: "k-123", Program: program}}
	out, err := agentkit.Execute(t.Context(), s, l, agentkit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Attempts != 2 || out.Status != "planned" {
		t.Fatalf("output = %+v", out)
	}
	reqs := srv.requests()
	if len(reqs) != 2 || reqs[0].auth != "Bearer k-123" || reqs[0].model != "tiny" || !strings.Contains(reqs[0].user, "## Task") {
		t.Fatalf("requests = %+v", reqs)
	}
	if !strings.Contains(reqs[1].user, "no frontmatter at all") {
		t.Errorf("the correction does not quote the previous answer: %q", reqs[1].user)
	}
	if _, err := (&builtins.LLM{}).Run(context.Background(), s); err == nil || !strings.Contains(err.Error(), "no endpoint") {
		t.Errorf("no endpoint: %v", err)
	}
}
