package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// processRuns reports whether pid still runs (gone and zombie both count
// as ended).
func processRuns(pid int) bool {
	if runtime.GOOS == "linux" {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
		return len(f) > 0 && string(f[0]) != "Z" && string(f[0]) != "X"
	}
	return syscall.Kill(pid, 0) == nil
}

// TestSIGKILLedStepLeavesNoAgent runs `git uwf thread step` with the real
// binary and an agent that starts a background child and sleeps, kills the
// git-uwf process with SIGKILL, and checks that no process of the agent
// runs a second later: a plain agent command, and the pipe agent's CLI
// with the pipe agent in process or spawned as its own process; supervised
// by git-uwf-agent-supervisor, or by git-uwf itself where that program is
// not installed.
func TestSIGKILLedStepLeavesNoAgent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc to list the agent's processes")
	}
	tests := []struct {
		name  string
		agent func(script string) string
		env   []string
		alone bool // git-uwf without git-uwf-agent-supervisor beside it
	}{
		{"agent command", func(script string) string { return "sh " + script }, nil, false},
		{"pipe agent in process", func(script string) string { return "git-uwf agent pipe -- sh " + script }, nil, false},
		{"pipe agent spawned", func(script string) string { return "git-uwf agent pipe -- sh " + script }, []string{"UWF_SPAWN_AGENTS=1"}, false},
		{"agent command, git-uwf supervises", func(script string) string { return "sh " + script }, nil, true},
		{"pipe agent spawned, git-uwf supervises", func(script string) string { return "git-uwf agent pipe -- sh " + script }, []string{"UWF_SPAWN_AGENTS=1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			home := t.TempDir()
			bin := gitUwfBin
			if tt.alone {
				bin = gitUwfAlone(t)
			}
			env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
				"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
				"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@uwf.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@uwf.invalid")
			env = append(env, tt.env...)
			run := func(args ...string) string {
				t.Helper()
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Dir, cmd.Env = dir, env
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return strings.TrimSpace(string(out))
			}
			pids := t.TempDir()
			script := filepath.Join(pids, "agent.sh")
			writeTestFile(t, script, `echo $$ > "`+pids+`/agent.tmp" && mv "`+pids+`/agent.tmp" "`+pids+`/agent.pid"
sleep 300 &
echo $! > "`+pids+`/child.tmp" && mv "`+pids+`/child.tmp" "`+pids+`/child.pid"
wait
`)
			writeTestFile(t, filepath.Join(dir, "one.yaml"), `name: one
roles:
  greeter:
    goal: You greet people.
    frontmatter:
      type: object
      properties: {$status: {const: done}}
      required: [$status]
graph:
  $START:
    _: {role: greeter, prompt: "Greet."}
  greeter:
    done: {role: $END, prompt: "Bye."}
`)
			run("git", "init", "-q")
			run("git", "uwf", "workflow", "put", "one.yaml")
			id := run("git", "uwf", "thread", "start", "one", "-p", "Say hello")
			id = id[strings.LastIndexAny(id, " \n")+1:]
			step := exec.Command(bin, "thread", "step", id, "--agent", tt.agent(script))
			step.Dir, step.Env = dir, env
			if err := step.Start(); err != nil {
				t.Fatal(err)
			}
			agentPID := readPIDFile(t, filepath.Join(pids, "agent.pid"))
			childPID := readPIDFile(t, filepath.Join(pids, "child.pid"))
			t.Cleanup(func() {
				_ = syscall.Kill(agentPID, syscall.SIGKILL)
				_ = syscall.Kill(childPID, syscall.SIGKILL)
			})
			if err := step.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = step.Wait()
			time.Sleep(time.Second)
			if processRuns(agentPID) || processRuns(childPID) {
				t.Fatalf("a second after SIGKILL of git-uwf: agent runs %v, its child runs %v", processRuns(agentPID), processRuns(childPID))
			}
			run("git", "fsck", "--strict", "--no-progress")
		})
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func readPIDFile(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the agent never wrote %s", path)
	return 0
}
