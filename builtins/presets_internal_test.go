package builtins

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestCodexResumeKeepsExecFlags(t *testing.T) {
	p, err := NewPipe("codex", nil, "gpt-x")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"codex", "exec", "--json", "--skip-git-repo-check", "-m", "gpt-x", "-"}; !reflect.DeepEqual(p.Argv, want) {
		t.Fatalf("argv = %q, want %q", p.Argv, want)
	}
	got := p.Preset.Resume(p.Argv, "0199-t")
	if want := []string{"codex", "exec", "--json", "--skip-git-repo-check", "-m", "gpt-x", "resume", "0199-t", "-"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("resume argv = %q, want %q", got, want)
	}
}

func TestStderrJSONError(t *testing.T) {
	tests := map[string]string{
		"":            "",
		"plain words": "",
		"trace {\n}\n{\n \"error\": {\"message\": \"boom\"}\n}": "boom",
		`{"error":"flat"}`:                  "flat",
		"x\n{\n \"session_id\": \"s\"\n}\n": "",
	}
	for in, want := range tests {
		if got := stderrJSONError([]byte(in)); got != want {
			t.Errorf("stderrJSONError(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEndpoints(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	ep := func(name string) Endpoint {
		p, _ := LookupPreset(name)
		return p.Endpoint(getenv)
	}
	if e := ep("claude"); e.URL != "https://api.anthropic.com" || e.From != "default" {
		t.Errorf("claude default: %+v", e)
	}
	env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"
	if e := ep("claude"); e.URL != "http://127.0.0.1:9" || e.From != "$ANTHROPIC_BASE_URL" {
		t.Errorf("claude env: %+v", e)
	}
	if e := ep("qwen"); e.URL != "" {
		t.Errorf("qwen without OPENAI_BASE_URL: %+v", e)
	}
	toml := "model_provider = \"fake\"\n# comment\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"http://127.0.0.1:7/v1\"\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	env["CODEX_HOME"] = dir
	env["OPENAI_BASE_URL"] = "http://ignored" // codex 0.169 ignores it
	if e := ep("codex"); e.URL != "http://127.0.0.1:7/v1" {
		t.Errorf("codex: %+v", e)
	}
	oc := filepath.Join(dir, "opencode.json")
	if err := os.WriteFile(oc, []byte(`{"model":"fake/m","provider":{"fake":{"options":{"baseURL":"http://127.0.0.1:8/v1"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env["OPENCODE_CONFIG"] = oc
	if e := ep("opencode"); e.URL != "http://127.0.0.1:8/v1" {
		t.Errorf("opencode: %+v", e)
	}
	env["OLLAMA_HOST"] = "127.0.0.1:5"
	if e := ep("ollama"); e.URL != "http://127.0.0.1:5" {
		t.Errorf("ollama: %+v", e)
	}
}
