//go:build agents

package agents

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/fakemodel"
)

// Timeouts of the failure cases: the pipe agent's (which kills the CLI's
// process group) and the engine's (which kills the pipe agent).
const (
	failPipeTimeout   = 25 * time.Second
	failEngineTimeout = 45 * time.Second
	// okPipeTimeout bounds one CLI run of the workflow cases.
	okPipeTimeout = 2 * time.Minute
)

// cli describes how one agent CLI is pointed at the fake server.
type cli struct {
	name string
	// model is passed with --model.
	model string
	// setup writes the CLI's configuration under home and returns the
	// alias's env (base URLs: what a user puts in agents.<alias>.env) and
	// the process env (keys, isolated config directories).
	setup func(t *testing.T, home, url string) (aliasEnv, procEnv map[string]string)
	// msg500, when set, is what the CLI says on a 500 instead of the
	// server's message (codex prints its own).
	msg500 string
	// retries5xx is set for CLIs that retry a 500 past any short timeout
	// and have no switch to stop it (gemini, qwen, opencode): the step
	// then fails by the pipe's timeout.
	retries5xx bool
}

func clis() []cli {
	return []cli{
		{name: "claude", model: "fake-model", setup: func(t *testing.T, home, url string) (map[string]string, map[string]string) {
			return map[string]string{"ANTHROPIC_BASE_URL": url},
				map[string]string{"ANTHROPIC_API_KEY": "sk-fake", "CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"),
					"CLAUDE_CODE_MAX_RETRIES": "0", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
		}},
		{name: "codex", model: "fake-model", msg500: "experiencing high demand", setup: func(t *testing.T, home, url string) (map[string]string, map[string]string) {
			codexHome := filepath.Join(home, ".codex")
			writeFile(t, filepath.Join(codexHome, "config.toml"), fmt.Sprintf(`model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "FAKE_MODEL_KEY"
request_max_retries = 0
stream_max_retries = 0
`, url))
			return map[string]string{"CODEX_HOME": codexHome}, map[string]string{"FAKE_MODEL_KEY": "sk-fake"}
		}},
		{name: "gemini", model: "fake-model", retries5xx: true, setup: func(t *testing.T, home, url string) (map[string]string, map[string]string) {
			// gemini >= 0.44 rejects GOOGLE_GEMINI_BASE_URL alone ("Invalid
			// auth method selected", exit 41) unless the settings select
			// the API-key auth type.
			writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`)
			return map[string]string{"GOOGLE_GEMINI_BASE_URL": url}, map[string]string{"GEMINI_API_KEY": "fake"}
		}},
		{name: "qwen", model: "fake-model", retries5xx: true, setup: func(t *testing.T, home, url string) (map[string]string, map[string]string) {
			// Without OPENAI_MODEL qwen 0.24.4 finds no auth type.
			return map[string]string{"OPENAI_BASE_URL": url + "/v1", "OPENAI_MODEL": "fake-model"},
				map[string]string{"OPENAI_API_KEY": "sk-fake"}
		}},
		{name: "opencode", model: "fake/fake-model", retries5xx: true, setup: func(t *testing.T, home, url string) (map[string]string, map[string]string) {
			cfg := filepath.Join(home, "opencode.json")
			writeFile(t, cfg, fmt.Sprintf(`{"$schema": "https://opencode.ai/config.json",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
    "options": {"baseURL": "%s/v1", "apiKey": "sk-fake"},
    "models": {"fake-model": {"name": "Fake model"}}}},
  "model": "fake/fake-model", "autoupdate": false, "share": "disabled", "permission": "allow"}
`, url))
			return map[string]string{"OPENCODE_CONFIG": cfg, "OPENCODE_DISABLE_MODELS_FETCH": "1"}, nil
		}},
	}
}

// The workflow: planner → worker; the worker is blocked on the first plan,
// so both roles run twice and their second steps resume their sessions.
const workflowYAML = chaintest.PlanWorkYAML

// answer plays the model: the reply depends only on the prompt, so side
// requests (titles, memory extraction) and retries change nothing.
func answer(r fakemodel.Request) fakemodel.Reply {
	switch fakemodel.RoleOf(r) {
	case "planner":
		if strings.Contains(r.Prompt, "Plan again") {
			return fakemodel.Reply{Text: "---\n$status: planned\nplan: PLAN-V2\n---\nThe second plan."}
		}
		return fakemodel.Reply{Text: "---\n$status: planned\nplan: PLAN-V1\n---\nThe first plan."}
	case "worker":
		if strings.Contains(r.Prompt, "Do: PLAN-V2") {
			return fakemodel.Reply{Text: "---\n$status: done\nnotes: shipped\n---\nDone."}
		}
		return fakemodel.Reply{Text: "---\n$status: blocked\nnotes: need PLAN-V2\n---\nBlocked."}
	}
	return fakemodel.Reply{Text: fakemodel.SideReply}
}

// suite is what every test shares: the built git-uwf, the installed CLIs
// and the summary.
type suite struct {
	bin     string            // directory holding git-uwf
	clis    map[string]string // name → bin directory
	skip    string            // why every CLI is skipped
	mu      sync.Mutex
	results map[string][]string // name → failed or skipped case notes
	status  map[string]string
}

func TestAgents(t *testing.T) {
	s := &suite{clis: map[string]string{}, results: map[string][]string{}, status: map[string]string{}}
	s.prepare(t)
	t.Run("cli", func(t *testing.T) {
		for _, c := range clis() {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				s.runCLI(t, c)
			})
		}
	})
	s.summarize(t)
}

func (s *suite) prepare(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		s.skip = "node not found on PATH (the CLIs need Node.js 20+)"
		return
	}
	install := exec.Command(filepath.Join(root, "scripts", "install-agent-clis.sh"))
	var out bytes.Buffer
	install.Stdout, install.Stderr = &out, &out
	err = install.Run()
	t.Logf("install-agent-clis.sh:\n%s", out.String())
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 2 {
		s.skip = "npm registry unreachable: " + strings.TrimSpace(out.String())
		return
	}
	list, perr := exec.Command(filepath.Join(root, "scripts", "install-agent-clis.sh"), "--print").Output()
	if perr != nil {
		t.Fatalf("install-agent-clis.sh --print: %v", perr)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) == 3 {
			if fi, err := os.Stat(f[2]); err == nil && !fi.IsDir() {
				s.clis[f[0]] = filepath.Dir(f[2])
			}
		}
	}
	s.bin = t.TempDir()
	// git-uwf-agent-supervisor beside git-uwf, as make install puts it,
	// supervises the agent CLIs (git-uwf-llm is built there too).
	build := exec.Command("go", "build", "-o", s.bin+string(filepath.Separator), "./cmd/git-uwf", "./cmd/git-uwf-agent-supervisor", "./cmd/git-uwf-llm")
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build git-uwf, git-uwf-agent-supervisor and git-uwf-llm: %v\n%s", err, b)
	}
}

// note records a case's outcome for the summary.
func (s *suite) note(name, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results[name] = append(s.results[name], msg)
}

func (s *suite) summarize(t *testing.T) {
	var lines []string
	for _, c := range clis() {
		s.mu.Lock()
		notes := s.results[c.name]
		status := s.status[c.name]
		s.mu.Unlock()
		if status == "" {
			status = "SKIP"
			notes = append(notes, "not run (filtered out by -run)")
		}
		line := fmt.Sprintf("agents: %-8s %s", c.name, status)
		if len(notes) > 0 {
			line += " — " + strings.Join(notes, "; ")
		}
		lines = append(lines, line)
	}
	text := strings.Join(lines, "\n") + "\n"
	t.Log("\n" + text)
	if path := os.Getenv("UWF_AGENT_SUMMARY"); path != "" {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Errorf("write the summary: %v", err)
		}
	}
}

func (s *suite) runCLI(t *testing.T, c cli) {
	set := func(status, why string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.status[c.name] = status
		if why != "" {
			s.results[c.name] = append(s.results[c.name], why)
		}
	}
	if s.skip != "" {
		set("SKIP", s.skip)
		t.Skip(s.skip)
	}
	dir, ok := s.clis[c.name]
	if !ok {
		set("FAIL", "not installed (see the install-agent-clis.sh output above)")
		t.Fatalf("%s is not installed", c.name)
	}
	cases := []struct {
		name string
		run  func(t *testing.T, e *env)
	}{
		{"workflow", s.workflow},
		{"401", func(t *testing.T, e *env) { s.failure(t, e, c, http.StatusUnauthorized) }},
		{"500", func(t *testing.T, e *env) { s.failure(t, e, c, http.StatusInternalServerError) }},
		{"hang", func(t *testing.T, e *env) { s.failure(t, e, c, 0) }},
	}
	t.Cleanup(func() {
		if t.Failed() {
			set("FAIL", "")
		} else {
			set("PASS", "")
		}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, s, c, dir)
			started := time.Now()
			tc.run(t, e)
			if t.Failed() {
				s.note(c.name, tc.name+" failed")
			} else {
				s.note(c.name, fmt.Sprintf("%s ok (%.0fs)", tc.name, time.Since(started).Seconds()))
			}
		})
	}
}

// env is one test's world: a fake server, an isolated home, a repository
// with the workflow and a thread.
type env struct {
	c      cli
	srv    *fakemodel.Server
	home   string
	repo   string
	proc   []string // the git-uwf process environment
	mark   string   // an env value that marks every process of this test
	thread string
}

func newEnv(t *testing.T, s *suite, c cli, cliDir string) *env {
	srv, err := fakemodel.New(answer)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	root := t.TempDir()
	e := &env{c: c, srv: srv, home: filepath.Join(root, "home"), repo: filepath.Join(root, "repo")}
	for _, d := range []string{e.home, e.repo, filepath.Join(e.home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 8)
	_, _ = rand.Read(buf)
	e.mark = hex.EncodeToString(buf)
	aliasEnv, procEnv := c.setup(t, e.home, srv.URL)
	node, _ := exec.LookPath("node")
	e.proc = []string{
		"PATH=" + strings.Join([]string{cliDir, s.bin, filepath.Dir(node), "/usr/local/bin", "/usr/bin", "/bin"}, string(os.PathListSeparator)),
		"HOME=" + e.home,
		"XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(e.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(e.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(e.home, ".local", "state"),
		"TMPDIR=" + filepath.Join(e.home, "tmp"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(e.home, ".gitconfig"),
		"GIT_AUTHOR_NAME=agents test", "GIT_AUTHOR_EMAIL=agents@test.invalid",
		"GIT_COMMITTER_NAME=agents test", "GIT_COMMITTER_EMAIL=agents@test.invalid",
		"NO_COLOR=1", "LANG=C.UTF-8",
		"UWF_AGENT_TEST_MARK=" + e.mark,
	}
	for k, v := range procEnv {
		e.proc = append(e.proc, k+"="+v)
	}
	if runtime.GOOS == "linux" && os.Getuid() == 0 {
		// claude refuses bypass modes as root without it; harmless otherwise.
		e.proc = append(e.proc, "IS_SANDBOX=1")
	}
	writeFile(t, filepath.Join(e.home, ".gitconfig"), "[init]\n\tdefaultBranch = main\n")

	// The user configuration: the preset alias with a short timeout and
	// the base-URL env.
	pipeTimeout, engineTimeout := okPipeTimeout, okPipeTimeout+30*time.Second
	if !strings.HasSuffix(t.Name(), "/workflow") {
		pipeTimeout, engineTimeout = failPipeTimeout, failEngineTimeout
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "defaultAgent: %s\nagents:\n  %s:\n", c.name, c.name)
	fmt.Fprintf(&cfg, "    command: git uwf agent pipe --preset %s --model %s --timeout %s\n", c.name, c.model, pipeTimeout)
	fmt.Fprintf(&cfg, "    timeout: %s\n", engineTimeout)
	if len(aliasEnv) > 0 {
		cfg.WriteString("    env:\n")
		keys := make([]string, 0, len(aliasEnv))
		for k := range aliasEnv {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&cfg, "      %s: %q\n", k, aliasEnv[k])
		}
	}
	writeFile(t, filepath.Join(e.home, ".config", "uwf", "config.yaml"), cfg.String())

	e.must(t, "git", "init", "-q")
	writeFile(t, filepath.Join(e.repo, "plan-work.yaml"), workflowYAML)
	e.must(t, "git", "uwf", "workflow", "put", "plan-work.yaml")
	e.must(t, "git", "uwf", "thread", "start", "plan-work", "-p", "Write the parser.")
	var list []struct {
		Thread string `json:"thread"`
	}
	if err := json.Unmarshal([]byte(e.must(t, "git", "uwf", "thread", "list", "--format", "json")), &list); err != nil || len(list) != 1 {
		t.Fatalf("thread list: %v %+v", err, list)
	}
	e.thread = list[0].Thread
	return e
}

// run runs a command in the repository with the test's environment.
func (e *env) run(t *testing.T, timeout time.Duration, name string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = e.repo, e.proc
	var o, er bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &er
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s %s did not finish in %s: %w", name, strings.Join(args, " "), timeout, ctx.Err())
	}
	return o.String(), er.String(), err
}

func (e *env) must(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, errOut, err := e.run(t, time.Minute, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, errOut)
	}
	return out
}

func (e *env) head(t *testing.T) string {
	t.Helper()
	return strings.TrimSpace(e.must(t, "git", "rev-parse", "refs/uwf/threads/"+e.thread))
}

// workflow runs the thread to completion through the real CLI.
func (s *suite) workflow(t *testing.T, e *env) {
	out, errOut, err := e.run(t, 10*time.Minute, "git", "uwf", "thread", "step", e.thread, "--until-done")
	if err != nil {
		t.Fatalf("thread step --until-done: %v\nstdout:\n%s\nstderr:\n%s\nrequests:\n%s", err, out, errOut, e.srv.Summary())
	}
	var sum struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(e.must(t, "git", "uwf", "thread", "show", e.thread, "--format", "json")), &sum); err != nil {
		t.Fatalf("thread show: %v", err)
	}
	if sum.Status != "completed" {
		t.Fatalf("thread status %q, want completed\n%s", sum.Status, errOut)
	}
	steps := e.steps(t)
	var got []string
	for _, st := range steps {
		got = append(got, st.role+":"+st.status)
	}
	if want := "planner:planned worker:blocked planner:planned worker:done"; strings.Join(got, " ") != want {
		t.Fatalf("steps %q, want %q", strings.Join(got, " "), want)
	}
	for i, st := range steps {
		if st.detail["agent"] != "pipe:"+e.c.name || st.detail["preset"] != e.c.name {
			t.Errorf("step %d detail names agent %v preset %v", i+1, st.detail["agent"], st.detail["preset"])
		}
		if code, _ := st.detail["exitCode"].(float64); code != 0 {
			t.Errorf("step %d exit code %v", i+1, st.detail["exitCode"])
		}
		if id, _ := st.detail["sessionId"].(string); id == "" {
			t.Errorf("step %d recorded no session id: %v", i+1, st.detail)
		}
	}
	// The second step of each role resumed the first one's session, and
	// the CLI accepted it (a failed resume is recorded as resumeError).
	for _, pair := range [][2]int{{0, 2}, {1, 3}} {
		first, again := steps[pair[0]], steps[pair[1]]
		if r := again.detail["resumeError"]; r != nil {
			t.Errorf("%s step %d could not resume: %v", again.role, pair[1]+1, r)
		}
		if again.detail["resumedSession"] != first.detail["sessionId"] {
			t.Errorf("%s step %d resumed %v, want the session of step %d (%v); command %v", again.role, pair[1]+1,
				again.detail["resumedSession"], pair[0]+1, first.detail["sessionId"], again.detail["command"])
		}
	}
	// The model saw git-uwf prompts for both roles, with the model asked.
	roles := map[string]int{}
	for _, r := range e.srv.ModelRequests() {
		if role := fakemodel.RoleOf(r); role != "" {
			roles[role]++
			want := e.c.model[strings.Index(e.c.model, "/")+1:]
			if r.Model != want {
				t.Errorf("a %s request asked for model %q, want %q", role, r.Model, want)
			}
		}
	}
	if roles["planner"] < 2 || roles["worker"] < 2 {
		t.Errorf("model requests per role %v; requests:\n%s", roles, e.srv.Summary())
	}
	t.Logf("%s: %d requests; steps %q; commands %v / %v", e.c.name, len(e.srv.Requests()), got,
		steps[0].detail["command"], steps[2].detail["command"])
}

type step struct {
	role, status string
	detail       map[string]any
}

// steps reads each step's role, status and agent detail from the commits.
func (e *env) steps(t *testing.T) []step {
	t.Helper()
	revs := strings.Fields(e.must(t, "git", "rev-list", "--reverse", "--first-parent", "refs/uwf/threads/"+e.thread))
	var out []step
	for _, rev := range revs[1:] {
		var node struct {
			Payload struct {
				Role, Output, Detail string
			}
		}
		if err := json.Unmarshal([]byte(e.must(t, "git", "show", rev+":node")), &node); err != nil {
			t.Fatalf("step node of %s: %v", rev, err)
		}
		var output, detail struct{ Payload map[string]any }
		if err := json.Unmarshal([]byte(e.must(t, "git", "show", rev+":nodes/"+node.Payload.Output)), &output); err != nil {
			t.Fatalf("output of %s: %v", rev, err)
		}
		if err := json.Unmarshal([]byte(e.must(t, "git", "show", rev+":nodes/"+node.Payload.Detail)), &detail); err != nil {
			t.Fatalf("detail of %s: %v", rev, err)
		}
		status, _ := output.Payload["$status"].(string)
		out = append(out, step{role: node.Payload.Role, status: status, detail: detail.Payload})
	}
	return out
}

// failure makes the server answer status (0: never answer) and checks the
// step fails in time with the CLI's own error, the head stays, and no
// process of the step is left.
func (s *suite) failure(t *testing.T, e *env, c cli, status int) {
	msg := fmt.Sprintf("fakemodel refuses with %d", status)
	wants := []string{msg}
	switch {
	case status == 0:
		e.srv.SetResponder(fakemodel.Hang())
		wants = []string{"timed out after " + failPipeTimeout.String()}
	case status >= 500 && c.retries5xx:
		e.srv.SetResponder(fakemodel.Fail(status, msg))
		wants = []string{"timed out after " + failPipeTimeout.String()}
	case status >= 500 && c.msg500 != "":
		e.srv.SetResponder(fakemodel.Fail(status, msg))
		wants = []string{c.msg500}
	default:
		e.srv.SetResponder(fakemodel.Fail(status, msg))
	}
	before := e.head(t)
	started := time.Now()
	out, errOut, err := e.run(t, failEngineTimeout+time.Minute, "git", "uwf", "thread", "step", e.thread)
	took := time.Since(started)
	if err == nil {
		t.Fatalf("the step succeeded against a failing server\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("thread step: %v", err)
	}
	for _, w := range wants {
		if !strings.Contains(errOut, w) {
			t.Errorf("the step's error does not contain %q:\n%s", w, lastLines(errOut, 8))
		}
	}
	if after := e.head(t); after != before {
		t.Errorf("the head moved from %s to %s", before, after)
	}
	if took > failPipeTimeout+15*time.Second {
		t.Errorf("the step took %s (pipe timeout %s)", took.Round(time.Second), failPipeTimeout)
	}
	if len(e.srv.ModelRequests()) == 0 {
		t.Errorf("the CLI never reached the server:\n%s", e.srv.Summary())
	}
	// Nothing the step started outlives it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := processesMarked(e.mark)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("processes left after the step: %s", strings.Join(left, ", "))
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The failed attempt is recorded, and `thread show` says failed.
	show := e.must(t, "git", "uwf", "thread", "show", e.thread, "--format", "json")
	if !strings.Contains(show, `"status": "failed"`) {
		t.Errorf("thread show after the failure:\n%s", show)
	}
	t.Logf("%s %s: failed in %s with: %s", c.name, caseName(status), took.Round(100*time.Millisecond), lastLines(errOut, 3))
}

func caseName(status int) string {
	if status == 0 {
		return "hang"
	}
	return fmt.Sprint(status)
}

// processesMarked lists the processes whose environment holds mark.
func processesMarked(mark string) []string {
	entries, _ := os.ReadDir("/proc")
	needle := []byte("UWF_AGENT_TEST_MARK=" + mark)
	var out []string
	for _, ent := range entries {
		pid := ent.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", pid, "environ"))
		if err != nil || !bytes.Contains(b, needle) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		out = append(out, pid+" "+strings.ReplaceAll(strings.TrimSpace(string(cmdline)), "\x00", " "))
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
