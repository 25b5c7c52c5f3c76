package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// layout writes the given files (user, team, repo; "" = absent, plus
// .env next to the user file) into a temp dir and returns their paths.
func layout(t *testing.T, user, team, repo, dotenv string) Paths {
	t.Helper()
	dir := t.TempDir()
	p := Paths{
		User: filepath.Join(dir, "home", ".config", "uwf", "config.yaml"),
		Team: filepath.Join(dir, "work", ".uwf", "config.yaml"),
		Repo: filepath.Join(dir, "work", ".git", "uwf", "config.yaml"),
	}
	for path, text := range map[string]string{p.User: user, p.Team: team, p.Repo: repo, p.DotenvPath(): dotenv} {
		if text == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestPrecedence(t *testing.T) {
	tests := []struct {
		name             string
		user, team, repo string
		workflow, role   string
		want             string
	}{
		{"nothing but user", "defaultAgent: claude\n", "", "", "wf", "r", "claude"},
		{"team beats user", "defaultAgent: claude\n", "defaultAgent: codex\n", "", "wf", "r", "codex"},
		{"repo beats team", "defaultAgent: claude\n", "defaultAgent: codex\n", "defaultAgent: gemini\n", "wf", "r", "gemini"},
		{"override beats default", "defaultAgent: claude\noverrides: {review-loop: {reviewer: human}}\n", "", "", "review-loop", "reviewer", "human"},
		{"override only for its role", "defaultAgent: claude\noverrides: {review-loop: {reviewer: human}}\n", "", "", "review-loop", "developer", "claude"},
		{"override only for its workflow", "defaultAgent: claude\noverrides: {review-loop: {reviewer: human}}\n", "", "", "other", "reviewer", "claude"},
		{"team override beats user default", "defaultAgent: claude\n", "overrides: {wf: {r: qwen}}\n", "", "wf", "r", "qwen"},
		{"repo default loses to team override", "", "overrides: {wf: {r: qwen}}\n", "defaultAgent: gemini\n", "wf", "r", "qwen"},
		{"repo null removes the team override", "defaultAgent: claude\n", "overrides: {wf: {r: qwen}}\n", "overrides: {wf: {r: null}}\n", "wf", "r", "claude"},
		{"user-defined alias", "defaultAgent: mine\nagents: {mine: {command: ./mine.sh}}\n", "", "", "wf", "r", "mine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(layout(t, tt.user, tt.team, tt.repo, ""), env())
			if err != nil {
				t.Fatal(err)
			}
			spec, err := cfg.ResolveAgent(tt.workflow, tt.role)
			if err != nil {
				t.Fatal(err)
			}
			if spec.Name != tt.want {
				t.Fatalf("resolved %q, want %q", spec.Name, tt.want)
			}
		})
	}
}

func TestResolveAgentSpec(t *testing.T) {
	p := layout(t, `
defaultAgent: mine
timeout: 10m
agents:
  mine:
    command: ["./scripts/agent.sh", "--fast"]
    env: {MODE: quick}
  slow: {command: "slow-agent --x 'a b'", timeout: 2h}
extraction: {retries: 1}
`, "", "", "")
	cfg, err := Load(p, env())
	if err != nil {
		t.Fatal(err)
	}
	spec, err := cfg.ResolveAgent("wf", "r")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(spec.Argv, []string{"./scripts/agent.sh", "--fast"}) || spec.Timeout != 10*time.Minute {
		t.Fatalf("spec = %+v", spec)
	}
	if !slices.Contains(spec.Env, "MODE=quick") || !slices.Contains(spec.Env, agentkit.EnvRetries+"=1") {
		t.Fatalf("env = %q", spec.Env)
	}
	slow, err := ParseAgentFlag("slow", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(slow.Argv, []string{"slow-agent", "--x", "a b"}) || slow.Timeout != 2*time.Hour {
		t.Fatalf("slow = %+v", slow)
	}
	claude, err := cfg.AgentSpec("claude")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(claude.Argv, " "); got != "git uwf agent pipe --preset claude" {
		t.Fatalf("claude argv = %q", got)
	}
}

func TestResolveAgentErrors(t *testing.T) {
	tests := []struct {
		name, user string
		getenv     func(string) string
		want       []string
	}{
		{"nothing configured", "", env(), []string{`no agent configured for role "reviewer": pass --agent "<command>" or run git uwf setup`}},
		{"unknown alias", "defaultAgent: nope\n", env(), []string{`unknown agent alias "nope"`, "known aliases: aider, amp, claude", "mock", "config.yaml:1"}},
		{"unknown override alias", "defaultAgent: claude\noverrides: {wf: {reviewer: ghost}}\n", env(), []string{`unknown agent alias "ghost"`, "config.yaml:2"}},
		{"mock needs a script", "defaultAgent: mock\n", env(), []string{"the mock agent needs a script", "UWF_MOCK_SCRIPT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(layout(t, tt.user, "", "", ""), tt.getenv)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cfg.ResolveAgent("wf", "reviewer")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	cfg, err := Load(layout(t, "defaultAgent: mock\n", "", "", ""), env("UWF_MOCK_SCRIPT", "/s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := cfg.ResolveAgent("wf", "r")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(spec.Env, "UWF_MOCK_SCRIPT=/s.yaml") {
		t.Fatalf("mock env = %q", spec.Env)
	}
}

func TestTrustRule(t *testing.T) {
	tests := []struct {
		name, team string
		line       int
		key        string
	}{
		{"agents", "defaultAgent: x\nagents:\n  x: {command: evil}\n", 2, "agents"},
		{"providers", "providers: {openai: {baseUrl: https://evil.example/v1}}\n", 1, "providers"},
		{"models", "models: {default: {provider: a, name: b}}\n", 1, "models"},
		{"extraction llm", "extraction:\n  retries: 1\n  llm: true\n", 3, "extraction.llm"},
		{"timeout", "timeout: 1s\n", 1, "timeout"},
		{"redaction", "redaction: {enabled: false}\n", 1, "redaction"},
		{"agents null", "agents: null\n", 1, "agents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layout(t, "", tt.team, "", "")
			_, err := Load(p, env())
			if err == nil {
				t.Fatal("team file accepted")
			}
			msg := err.Error()
			for _, w := range []string{p.Team + ":" + strconv.Itoa(tt.line) + ":", `"` + tt.key + `" may not be set in the team configuration`} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
	// What the team file may do.
	p := layout(t, "", "defaultAgent: claude\noverrides: {wf: {r: human}}\nextraction: {retries: 3}\n", "", "")
	cfg, err := Load(p, env())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DefaultAgent != "claude" || cfg.Overrides["wf"]["r"] != "human" || cfg.Retries == nil || *cfg.Retries != 3 {
		t.Fatalf("team values not applied: %+v", cfg)
	}
	// The same keys in the user and repo files are fine.
	for _, scope := range []string{"user", "repo"} {
		text := "agents: {x: {command: ok}}\nproviders: {p: {baseUrl: http://h/v1}}\n"
		var q Paths
		if scope == "user" {
			q = layout(t, text, "", "", "")
		} else {
			q = layout(t, "", "", text, "")
		}
		if _, err := Load(q, env()); err != nil {
			t.Errorf("%s file: %v", scope, err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, user string
		want       []string
	}{
		{"unknown key", "defaultAgent: a\ncolour: red\n", []string{"config.yaml:2:", `unknown key "colour"`}},
		{"unknown nested key", "agents:\n  a:\n    cmd: x\n", []string{"config.yaml:3:", `unknown key "agents.a.cmd"`, "command, timeout, env"}},
		{"inline api key", "providers:\n  p: {baseUrl: x, apiKey: sk-1}\n", []string{"config.yaml:2:", "secrets are never stored"}},
		{"bad duration", "timeout: soon\n", []string{"config.yaml:1:", "timeout", "not a positive duration"}},
		{"bad retries", "extraction: {retries: -1}\n", []string{"extraction.retries", "non-negative integer"}},
		{"bad bool", "extraction: {llm: maybe}\n", []string{"extraction.llm", "not true or false"}},
		{"unbalanced quote", "agents: {a: {command: \"run 'oops\"}}\n", []string{"agents.a.command", "unterminated"}},
		{"empty command list", "agents: {a: {command: []}}\n", []string{"agents.a.command", "empty command line"}},
		{"agent without command", "agents: {a: {timeout: 1m}}\n", []string{`agent "a" has no command`}},
		{"not a mapping", "- a\n- b\n", []string{"must be a mapping"}},
		{"duplicate key", "defaultAgent: a\ndefaultAgent: b\n", []string{"config.yaml:2:"}},
		{"yaml syntax", "defaultAgent: [\n", []string{"parse", "config.yaml"}},
		{"llm without model", "extraction: {llm: true}\n", []string{"extraction.llm is on", `model "default" is not configured`}},
		{"bad pattern", "redaction: {patterns: ['(']}\n", []string{"redaction.patterns"}},
		{"bad env name", "agents: {a: {command: x, env: {'1X': y}}}\n", []string{"not a valid environment variable name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(layout(t, tt.user, "", "", ""), env())
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParseAgentFlag(t *testing.T) {
	cfg, err := Load(layout(t, "agents: {mine: {command: ./mine.sh}}\ntimeout: 5m\n", "", "", ""), env())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		value    string
		wantName string
		wantArgv []string
		wantErr  string
	}{
		{"claude", "claude", []string{"git", "uwf", "agent", "pipe", "--preset", "claude"}, ""},
		{" mine ", "mine", []string{"./mine.sh"}, ""},
		{`./agent.sh --msg "hello world" 'a b' c\ d`, "", []string{"./agent.sh", "--msg", "hello world", "a b", "c d"}, ""},
		{`git uwf agent pipe -- sh -c 'cat >/dev/null; printf "---\n\$status: done\n---\nok"'`, "",
			[]string{"git", "uwf", "agent", "pipe", "--", "sh", "-c", `cat >/dev/null; printf "---\n\$status: done\n---\nok"`}, ""},
		{"claude --model opus", "", []string{"claude", "--model", "opus"}, ""},
		{`run "oops`, "", nil, "unterminated"},
		{"   ", "", nil, "empty"},
		{"mock", "", nil, "needs a script"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			spec, err := ParseAgentFlag(tt.value, cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(spec.Argv, tt.wantArgv) {
				t.Fatalf("argv = %q, want %q", spec.Argv, tt.wantArgv)
			}
			if tt.wantName != "" && spec.Name != tt.wantName {
				t.Fatalf("name = %q, want %q", spec.Name, tt.wantName)
			}
			if spec.Timeout != 5*time.Minute {
				t.Fatalf("timeout = %v", spec.Timeout)
			}
		})
	}
	if spec, err := ParseAgentFlag("codex", nil); err != nil || spec.Argv[len(spec.Argv)-1] != "codex" {
		t.Fatalf("nil config: %+v, %v", spec, err)
	}
}

func TestAgentEnv(t *testing.T) {
	user := `
extraction: {retries: 0, llm: true, model: fast}
providers: {local: {baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: LOCAL_KEY}}
models: {fast: {provider: local, name: tiny}}
redaction: {enabled: false, patterns: ["ACME-[0-9]+", "x{3}"]}
`
	tests := []struct {
		name   string
		getenv func(string) string
		dotenv string
		want   []string
		absent []string
	}{
		{"key from environment", env("LOCAL_KEY", "from-env"), "", []string{
			agentkit.EnvRetries + "=0", agentkit.EnvLLMBaseURL + "=http://127.0.0.1:9/v1", agentkit.EnvLLMModel + "=tiny",
			agentkit.EnvLLMKey + "=from-env", agentkit.EnvNoRedact + "=1", agentkit.EnvRedactMore + "=ACME-[0-9]+\nx{3}"}, nil},
		{"key from .env", env(), "# secrets\nexport LOCAL_KEY=\"from-dotenv\"\nOTHER='x y'\n", []string{
			agentkit.EnvLLMKey + "=from-dotenv", "OTHER=x y", "LOCAL_KEY=from-dotenv"}, nil},
		{"environment wins over .env", env("LOCAL_KEY", "env", "OTHER", "set"), "LOCAL_KEY=dot\nOTHER=dot\n", []string{
			agentkit.EnvLLMKey + "=env"}, []string{"OTHER=dot", "LOCAL_KEY=dot"}},
		{"no key at all", env(), "", []string{agentkit.EnvLLMModel + "=tiny"}, []string{agentkit.EnvLLMKey + "="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(layout(t, user, "", "", tt.dotenv), tt.getenv)
			if err != nil {
				t.Fatal(err)
			}
			got := cfg.AgentEnv()
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("AgentEnv() = %q, missing %q", got, w)
				}
			}
			for _, a := range tt.absent {
				if slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, a) }) {
					t.Errorf("AgentEnv() = %q, should not contain %q", got, a)
				}
			}
		})
	}
	opts, err := agentkit.OptionsFromEnv(func(k string) string {
		cfg, _ := Load(layout(t, user, "", "", ""), env("LOCAL_KEY", "k"))
		for _, kv := range cfg.AgentEnv() {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v
			}
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Retries != -1 || opts.LLM == nil || opts.LLM.Model != "tiny" || opts.LLM.APIKey != "k" || !opts.NoRedact {
		t.Fatalf("agentkit reads %+v", opts)
	}
}

func TestGetSetUnset(t *testing.T) {
	p := layout(t, "# my settings\ndefaultAgent: claude  # the usual\n", "", "", "")
	cfg, err := Load(p, env())
	if err != nil {
		t.Fatal(err)
	}
	sets := []struct {
		scope      Scope
		key, value string
		wantErr    string
	}{
		{ScopeUser, "defaultAgent", "codex", ""},
		{ScopeUser, "agents.mine.command", "./run.sh --x 'a b'", ""},
		{ScopeUser, "agents.list.command", `["./run.sh", "a b"]`, ""},
		{ScopeUser, "agents.mine.timeout", "90s", ""},
		{ScopeUser, "agents.mine.env.MODE", "fast", ""},
		{ScopeUser, "overrides.review-loop.reviewer", "human", ""},
		{ScopeUser, "extraction.retries", "4", ""},
		{ScopeUser, "extraction.llm", "false", ""},
		{ScopeUser, "providers.openai.apiKeyEnv", "OPENAI_API_KEY", ""},
		{ScopeRepo, "defaultAgent", "gemini", ""},
		{ScopeTeam, "overrides.wf.r", "qwen", ""},
		{ScopeTeam, "agents.evil.command", "rm -rf /", "may not be set in the team configuration"},
		{ScopeTeam, "providers.p.baseUrl", "http://x", "may not be set in the team configuration"},
		{ScopeUser, "agents.mine.timeout", "soon", "not a positive duration"},
		{ScopeUser, "extraction.retries", "many", "not a non-negative integer"},
		{ScopeUser, "colour", "red", `unknown key "colour"`},
		{ScopeUser, "agents.mine", "x", "is a section"},
		{ScopeUser, "providers.openai.apiKey", "sk-1", "secrets are never stored"},
		{ScopeUser, "agents.bad.command", "'open", "unterminated"},
	}
	for _, s := range sets {
		err := cfg.Set(s.scope, s.key, s.value)
		if s.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), s.wantErr) {
				t.Errorf("Set(%s, %s) error = %v, want %q", s.scope, s.key, err, s.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Set(%s, %s): %v", s.scope, s.key, err)
		}
	}
	data, _ := os.ReadFile(p.User)
	if !strings.Contains(string(data), "# my settings") || !strings.Contains(string(data), "# the usual") {
		t.Errorf("comments lost:\n%s", data)
	}
	cfg, err = Load(p, env())
	if err != nil {
		t.Fatalf("reload after set: %v", err)
	}
	gets := map[string]string{
		"defaultAgent":                   "gemini", // repo wins
		"agents.mine.command":            "./run.sh --x 'a b'",
		"agents.list.command":            "./run.sh 'a b'",
		"agents.mine.env.MODE":           "fast",
		"overrides.wf.r":                 "qwen",
		"extraction.retries":             "4",
		"agents.claude.command":          "git uwf agent pipe --preset claude",
		"overrides.review-loop.reviewer": "human",
	}
	for key, want := range gets {
		e, ok, err := cfg.Get(key)
		if err != nil || !ok || e.Text != want {
			t.Errorf("Get(%s) = %q, %v, %v; want %q", key, e.Text, ok, err, want)
		}
	}
	if e, _, _ := cfg.Get("defaultAgent"); e.Scope != ScopeRepo || e.File != p.Repo {
		t.Errorf("defaultAgent from %s %s", e.Scope, e.File)
	}
	if !reflect.DeepEqual(cfg.Agents["list"].Argv, []string{"./run.sh", "a b"}) {
		t.Errorf("list argv %q", cfg.Agents["list"].Argv)
	}
	if _, ok, err := cfg.Get("extraction.model"); ok || err != nil {
		t.Errorf("unset key: ok=%v err=%v", ok, err)
	}
	if _, _, err := cfg.Get("nope.x"); err == nil {
		t.Error("Get of an unknown key succeeded")
	}
	if err := cfg.Unset(ScopeRepo, "defaultAgent"); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Unset(ScopeRepo, "defaultAgent"); err == nil {
		t.Error("second unset succeeded")
	}
	cfg, _ = Load(p, env())
	if cfg.DefaultAgent != "codex" {
		t.Errorf("after unset defaultAgent = %q, want codex", cfg.DefaultAgent)
	}
	if data, _ := os.ReadFile(p.Repo); len(strings.TrimSpace(string(data))) != 0 {
		t.Errorf("repo file not emptied: %q", data)
	}
}

func TestListMasksSecrets(t *testing.T) {
	cfg, err := Load(layout(t, `
agents:
  a:
    command: run
    env: {GITHUB_TOKEN: ghp_secret, CLIENT_SECRET: s3, DB_PASSWORD: pw, MY_API_KEY: k, MODE: fast}
providers: {p: {baseUrl: http://x/v1, apiKeyEnv: OPENAI_API_KEY}}
`, "", "", ""), env())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range cfg.List() {
		got[e.Key] = e.Text
	}
	want := map[string]string{
		"agents.a.env.GITHUB_TOKEN":  "***",
		"agents.a.env.CLIENT_SECRET": "***",
		"agents.a.env.DB_PASSWORD":   "***",
		"agents.a.env.MY_API_KEY":    "***",
		"agents.a.env.MODE":          "fast",
		"providers.p.apiKeyEnv":      "OPENAI_API_KEY",
		"agents.claude.command":      "git uwf agent pipe --preset claude",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("List %s = %q, want %q", k, got[k], w)
		}
	}
	for _, e := range cfg.List() {
		if strings.Contains(e.Text, "ghp_secret") || e.Text == "s3" || e.Text == "pw" {
			t.Errorf("secret leaked in %s = %q", e.Key, e.Text)
		}
	}
}

func TestPaths(t *testing.T) {
	tests := []struct {
		name   string
		getenv func(string) string
		want   string
	}{
		{"xdg", env("XDG_CONFIG_HOME", "/x", "HOME", "/h"), "/x/uwf/config.yaml"},
		{"relative xdg ignored", env("XDG_CONFIG_HOME", "rel", "HOME", "/h"), "/h/.config/uwf/config.yaml"},
		{"home", env("HOME", "/h"), "/h/.config/uwf/config.yaml"},
		{"none", env(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UserFile(tt.getenv); got != tt.want {
				t.Fatalf("UserFile = %q, want %q", got, tt.want)
			}
		})
	}
	p := PathsFor(&gitrepo.Repo{CommonDir: "/r/.git", WorkTree: "/r"}, env("HOME", "/h"))
	if p.Repo != "/r/.git/uwf/config.yaml" || p.Team != "/r/.uwf/config.yaml" || p.DotenvPath() != "/h/.config/uwf/.env" {
		t.Fatalf("paths = %+v", p)
	}
	if p := PathsFor(&gitrepo.Repo{CommonDir: "/r.git", Bare: true}, env()); p.Team != "" || p.User != "" {
		t.Fatalf("bare paths = %+v", p)
	}
}
