package configcmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	configcmd "github.com/git-uwf/git-uwf/cmd/git-uwf/config"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
)

type result struct {
	code        int
	out, errOut string
}

// run runs git-uwf in-process in dir with HOME-less config under xdg.
func run(t *testing.T, dir, xdg string, args ...string) result {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	env := map[string]string{"XDG_CONFIG_HOME": xdg}
	f := &cmdutil.Factory{
		IO:         ios,
		Getwd:      func() (string, error) { return dir, nil },
		Getenv:     func(k string) string { return env[k] },
		Environ:    os.Environ,
		Now:        time.Now,
		Executable: os.Executable,
	}
	f.Repo = cmdutil.OpenRepoOnce(f)
	code := root.Run(t.Context(), f, append([]string{"git-uwf"}, args...))
	return result{code, out.String(), errOut.String()}
}

func TestConfigCommands(t *testing.T) {
	dir := chaintest.InitRepo(t)
	xdg := t.TempDir()
	userFile := filepath.Join(xdg, "uwf", "config.yaml")
	repoFile := filepath.Join(dir, ".git", "uwf", "config.yaml")
	teamFile := filepath.Join(dir, ".uwf", "config.yaml")
	steps := []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
		wantFile string // a file that must now contain wantIn
		wantIn   string
	}{
		{args: []string{"config", "set", "defaultAgent", "codex"}, wantFile: repoFile, wantIn: "defaultAgent: codex"},
		{args: []string{"config", "set", "--user", "defaultAgent", "claude"}, wantFile: userFile, wantIn: "defaultAgent: claude"},
		{args: []string{"config", "set", "--user", "agents.mine.command", "./x.sh 'a b'"}, wantFile: userFile, wantIn: "command: ./x.sh 'a b'"},
		{args: []string{"config", "set", "--user", "agents.mine.env.API_TOKEN", "t0ken-value"}, wantFile: userFile, wantIn: "API_TOKEN: t0ken-value"},
		{args: []string{"config", "set", "--team", "overrides.review-loop.reviewer", "human"}, wantFile: teamFile, wantIn: "reviewer: human"},
		{args: []string{"config", "set", "--team", "agents.evil.command", "curl evil | sh"}, wantCode: 1, wantErr: "may not be set in the team configuration"},
		{args: []string{"config", "set", "--user", "--repo", "defaultAgent", "x"}, wantCode: 2, wantErr: "only one of --user, --repo and --team"},
		{args: []string{"config", "set", "timeout", "soon"}, wantCode: 1, wantErr: "not a positive duration"},
		{args: []string{"config", "set", "defaultAgent"}, wantCode: 2, wantErr: "want <key> <value>"},
		{args: []string{"config", "get", "defaultAgent"}, wantOut: "codex\n"},
		{args: []string{"config", "get", "agents.mine.command"}, wantOut: "./x.sh 'a b'\n"},
		{args: []string{"config", "get", "agents.claude.command"}, wantOut: "git uwf agent pipe --preset claude\n"},
		{args: []string{"config", "get", "extraction.model"}, wantCode: 1, wantErr: "extraction.model is not set"},
		{args: []string{"config", "get", "colour"}, wantCode: 2, wantErr: `unknown key "colour"`},
		{args: []string{"config", "list"}, wantOut: "agents.mine.command=./x.sh 'a b'\nagents.mine.env.API_TOKEN=***\ndefaultAgent=codex\noverrides.review-loop.reviewer=human\n"},
		{args: []string{"config", "list", "--show-origin"}, wantOut: "repo:" + repoFile + ":1\tdefaultAgent=codex\n"},
		{args: []string{"config", "unset", "defaultAgent"}},
		{args: []string{"config", "get", "defaultAgent"}, wantOut: "claude\n"},
		{args: []string{"config", "unset", "defaultAgent"}, wantCode: 1, wantErr: "is not set there"},
	}
	for _, s := range steps {
		res := run(t, dir, xdg, s.args...)
		name := strings.Join(s.args, " ")
		if res.code != s.wantCode {
			t.Fatalf("%s: exit %d, want %d; stderr %s", name, res.code, s.wantCode, res.errOut)
		}
		if s.wantOut != "" && !strings.Contains(res.out, s.wantOut) {
			t.Errorf("%s: stdout %q does not contain %q", name, res.out, s.wantOut)
		}
		if s.wantErr != "" && !strings.Contains(res.errOut, s.wantErr) {
			t.Errorf("%s: stderr %q does not contain %q", name, res.errOut, s.wantErr)
		}
		if strings.Contains(res.out, "t0ken-value") && s.args[1] == "list" {
			t.Errorf("%s: secret shown: %s", name, res.out)
		}
		if s.wantFile != "" {
			b, err := os.ReadFile(s.wantFile)
			if err != nil || !strings.Contains(string(b), s.wantIn) {
				t.Errorf("%s: %s = %q, %v; want %q in it", name, s.wantFile, b, err, s.wantIn)
			}
		}
	}
	res := run(t, dir, xdg, "config", "list", "--format", "json", "--builtin")
	var list []configcmd.Value
	if err := json.Unmarshal([]byte(res.out), &list); err != nil {
		t.Fatalf("%v: %s", err, res.out)
	}
	scopes := map[string]string{}
	for _, v := range list {
		scopes[v.Key] = v.Scope
	}
	if scopes["agents.claude.command"] != "built-in" || scopes["overrides.review-loop.reviewer"] != "team" || scopes["defaultAgent"] != "user" {
		t.Errorf("scopes = %v", scopes)
	}

	// Outside a repository, set writes the user file.
	outside := t.TempDir()
	if res := run(t, outside, xdg, "config", "set", "timeout", "45m"); res.code != 0 {
		t.Fatalf("outside: %s", res.errOut)
	}
	if b, _ := os.ReadFile(userFile); !strings.Contains(string(b), "timeout: 45m") {
		t.Errorf("user file:\n%s", b)
	}
	if res := run(t, outside, xdg, "config", "set", "--team", "defaultAgent", "x"); res.code != 1 || !strings.Contains(res.errOut, "not inside a repository") {
		t.Errorf("team outside a repo: %d %s", res.code, res.errOut)
	}

	// A team file that defines a command breaks loading, naming the line.
	if err := os.WriteFile(teamFile, []byte("defaultAgent: x\nagents:\n  x: {command: evil}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = run(t, dir, xdg, "config", "list")
	if res.code != 1 || !strings.Contains(res.errOut, teamFile+":2:") || !strings.Contains(res.errOut, `"agents" may not be set in the team configuration`) {
		t.Errorf("team agents: %d %s", res.code, res.errOut)
	}
}
