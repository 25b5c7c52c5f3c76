package main_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// supervisorProgram is the agent supervisor's program, built beside
// gitUwfBin by TestMain.
const supervisorProgram = "git-uwf-agent-supervisor"

// gitUwfAlone returns a git-uwf installed without git-uwf-agent-supervisor
// beside it: a copy of gitUwfBin in a directory of its own.
func gitUwfAlone(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "git-uwf")
	if err := os.Link(gitUwfBin, bin); err == nil {
		return bin
	}
	src, err := os.Open(gitUwfBin)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestSpawnedAgentSupervisor steps a thread with an agent command, which
// git-uwf spawns under a supervisor, and checks which program the
// supervisor was: git-uwf-agent-supervisor when it is installed beside
// git-uwf (also when git-uwf is run through a symbolic link to it), and
// git-uwf itself, supervising from its init function, when it is not. The
// step succeeds either way.
func TestSpawnedAgentSupervisor(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the supervisor's program from /proc")
	}
	installed := filepath.Join(filepath.Dir(gitUwfBin), supervisorProgram)
	linked := filepath.Join(t.TempDir(), "git-uwf")
	if err := os.Symlink(gitUwfBin, linked); err != nil {
		t.Fatal(err)
	}
	alone := gitUwfAlone(t)
	tests := []struct {
		name string
		bin  string // the git-uwf that steps
		want string // the supervisor's program
	}{
		{"installed beside git-uwf", gitUwfBin, installed},
		{"git-uwf run through a symbolic link", linked, installed},
		{"not installed: git-uwf supervises", alone, alone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			home := t.TempDir()
			env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
				"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "UWF_SPAWN_AGENTS=",
				"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@uwf.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@uwf.invalid")
			run := func(name string, args ...string) string {
				t.Helper()
				cmd := exec.Command(name, args...)
				cmd.Dir, cmd.Env = dir, env
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
				}
				return strings.TrimSpace(string(out))
			}
			writeTestFile(t, filepath.Join(dir, "linear.yaml"), inprocWorkflow)
			writeTestFile(t, filepath.Join(dir, "mock.yaml"), inprocScript)
			// The agent notes its parent's program, then is the mock agent.
			parent := filepath.Join(t.TempDir(), "parent")
			writeTestFile(t, filepath.Join(dir, "agent.sh"), `readlink /proc/$PPID/exe > "`+parent+`"
exec "`+gitUwfBin+`" agent mock --script mock.yaml "$@"
`)
			run("git", "init", "-q")
			run(tt.bin, "workflow", "put", "linear.yaml")
			run(tt.bin, "thread", "start", "linear", "-p", "Ship it")
			ref := run("git", "for-each-ref", "--format=%(refname)", "refs/uwf/threads/")
			before := run("git", "rev-parse", ref)
			run(tt.bin, "thread", "step", strings.TrimPrefix(ref, "refs/uwf/threads/"), "--agent", "sh agent.sh")

			got, err := os.ReadFile(parent)
			if err != nil {
				t.Fatalf("the agent did not note its parent: %v", err)
			}
			want, err := filepath.EvalSymlinks(tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(got)); got != want {
				t.Errorf("the agent's supervisor was %s, want %s", got, want)
			}
			if after := run("git", "rev-parse", ref); after == before {
				t.Errorf("the step did not commit: %s still at %s", ref, before)
			}
			if plan := run("git", "show", ref+":output.yaml"); !strings.Contains(plan, "write the code") {
				t.Errorf("output.yaml of the step:\n%s", plan)
			}
		})
	}
}
