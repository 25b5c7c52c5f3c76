package setup_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
	"github.com/git-uwf/git-uwf/config"
)

type result struct {
	code        int
	out, errOut string
}

func run(t *testing.T, xdg string, tty bool, stdin string, args ...string) result {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	ios.SetStdinTTY(tty)
	in.WriteString(stdin)
	dir := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": xdg, "PATH": ""}
	f := &cmdutil.Factory{
		IO:         ios,
		Getwd:      func() (string, error) { return dir, nil },
		Getenv:     func(k string) string { return env[k] },
		Environ:    os.Environ,
		Now:        time.Now,
		Executable: os.Executable,
	}
	f.Repo = cmdutil.OpenRepoOnce(f)
	code := root.Run(t.Context(), f, append([]string{"git-uwf", "setup"}, args...))
	return result{code, out.String(), errOut.String()}
}

func TestSetup(t *testing.T) {
	tests := []struct {
		name     string
		tty      bool
		stdin    string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
		want     map[string]string
	}{
		{name: "no flags without a terminal", wantCode: 2, wantErr: "stdin is not a terminal"},
		{name: "agent only", args: []string{"--agent", "claude"}, wantOut: []string{"defaultAgent = claude"}, want: map[string]string{"defaultAgent": "claude"}},
		{name: "provider and model", args: []string{"--agent", "llm", "--provider", "local", "--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "LOCAL_KEY", "--model", "tiny"},
			wantOut: []string{"providers.local.baseUrl = http://127.0.0.1:9/v1", "models.default.name = tiny", "note: LOCAL_KEY is not set"},
			want:    map[string]string{"defaultAgent": "llm", "providers.local.apiKeyEnv": "LOCAL_KEY", "models.default.provider": "local", "models.default.name": "tiny"}},
		{name: "unknown alias", args: []string{"--agent", "nope"}, wantCode: 2, wantErr: `unknown alias "nope"`},
		{name: "base url without provider", args: []string{"--base-url", "http://x"}, wantCode: 2, wantErr: "need --provider"},
		{name: "provider without base url", args: []string{"--provider", "p"}, wantCode: 2, wantErr: "no base URL"},
		{name: "interactive", tty: true, stdin: "codex\ny\n\nhttp://x/v1\nMY_KEY\nm1\n",
			wantOut: []string{"Default agent", "defaultAgent = codex", "providers.openai.baseUrl = http://x/v1"},
			want:    map[string]string{"defaultAgent": "codex", "providers.openai.apiKeyEnv": "MY_KEY", "models.default.name": "m1"}},
		{name: "interactive without provider", tty: true, stdin: "human\n\n", want: map[string]string{"defaultAgent": "human"}},
		{name: "interactive retries an unknown alias", tty: true, stdin: "nope\nqwen\nn\n", wantOut: []string{`unknown alias "nope"`}, want: map[string]string{"defaultAgent": "qwen"}},
		{name: "interactive input ends", tty: true, stdin: "", wantCode: 1, wantErr: "input ended"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xdg := t.TempDir()
			res := run(t, xdg, tt.tty, tt.stdin, tt.args...)
			if res.code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", res.code, tt.wantCode, res.errOut)
			}
			if tt.wantErr != "" && !strings.Contains(res.errOut, tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", res.errOut, tt.wantErr)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(res.out, w) {
					t.Errorf("stdout %q does not contain %q", res.out, w)
				}
			}
			if tt.want == nil {
				return
			}
			cfg, err := config.Load(config.Paths{User: filepath.Join(xdg, "uwf", "config.yaml")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.want {
				if e, ok, _ := cfg.Get(k); !ok || e.Text != v {
					t.Errorf("%s = %q (set %v), want %q", k, e.Text, ok, v)
				}
			}
		})
	}
}
