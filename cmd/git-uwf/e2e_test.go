package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// gitUwfBin is the git-uwf binary built once for the end-to-end scripts,
// with git-uwf-agent-supervisor and git-uwf-llm beside it as make install
// puts them.
var gitUwfBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "git-uwf-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	gitUwfBin = filepath.Join(dir, "git-uwf")
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".", "../git-uwf-agent-supervisor", "../git-uwf-llm")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build git-uwf, git-uwf-agent-supervisor and git-uwf-llm:", err)
		return 1
	}
	return m.Run()
}

// TestScripts runs testdata/script/*.txtar: whole CLI sessions against real
// repositories, with the real git-uwf binary (so `git uwf …` works too) and
// the built-in mock and pipe agents, offline.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			bin := filepath.Dir(gitUwfBin)
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			gitconfig := filepath.Join(home, ".gitconfig")
			if err := os.WriteFile(gitconfig, []byte("[user]\n\tname = uwf test\n\temail = test@uwf.invalid\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
				return err
			}
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("GIT_CONFIG_GLOBAL", gitconfig)
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
			env.Setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
			env.Setenv("NO_COLOR", "1")
			return nil
		},
	})
}

// TestScenarioFixture builds the testdata/repos scenario with the real
// binary and checks what it promises: two clones and a remote, the shared
// thread kept under its name everywhere and the diverged line as a fork.
func TestScenarioFixture(t *testing.T) {
	dir := t.TempDir()
	script, err := filepath.Abs("../../testdata/repos/scenario.sh")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := append(os.Environ(), "PATH="+filepath.Dir(gitUwfBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	cmd := exec.Command("sh", script, dir)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scenario.sh: %v\n%s", err, out)
	}
	id := strings.TrimSpace(string(out))
	for _, clone := range []string{"a", "b"} {
		list := exec.Command("git", "uwf", "thread", "list", "--all", "--format", "json")
		list.Dir = filepath.Join(dir, clone)
		list.Env = env
		got, err := list.Output()
		if err != nil {
			t.Fatalf("%s: thread list: %v", clone, err)
		}
		// The shared thread, B's fork from step 1, and the fork that keeps
		// the diverged line.
		if n := strings.Count(string(got), `"thread":`); n != 3 || !strings.Contains(string(got), id) {
			t.Errorf("%s: %d threads (want 3, including %s):\n%s", clone, n, id, got)
		}
		fsck := exec.Command("git", "fsck", "--strict", "--no-dangling")
		fsck.Dir = filepath.Join(dir, clone)
		if out, err := fsck.CombinedOutput(); err != nil {
			t.Errorf("%s: git fsck: %v\n%s", clone, err, out)
		}
	}
}

// TestRunByGitStartsNoDiscovery: run as `git uwf` (git sets GIT_EXEC_PATH
// for the external commands it runs), git-uwf finds the repository from
// its files, as when it is run directly, and starts no `git rev-parse`.
func TestRunByGitStartsNoDiscovery(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	home := t.TempDir()
	trace := filepath.Join(t.TempDir(), "trace.json")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+filepath.Dir(gitUwfBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_TRACE2_EVENT="+trace)
	list := exec.Command("git", "uwf", "thread", "list", "--all")
	list.Dir = dir
	list.Env = env
	if out, err := list.CombinedOutput(); err != nil {
		t.Fatalf("git uwf thread list: %v\n%s", err, out)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var commands int
	for line := range strings.Lines(string(data)) {
		if !strings.Contains(line, `"event":"start"`) {
			continue
		}
		commands++
		if strings.Contains(line, `"rev-parse"`) {
			t.Errorf("git uwf started git rev-parse: %s", line)
		}
	}
	if commands == 0 {
		t.Fatalf("the trace has no start event: %s", data)
	}
}
