//go:build unix

package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
)

// program is git-uwf-agent-supervisor, built once for the tests.
var program string

// Environment of the test binary re-run as the process that starts the
// agent (the engine's part): the program, the lock file it holds and the
// agent's script.
const (
	envProgram = "UWF_TEST_SUPERVISOR_PROGRAM"
	envLock    = "UWF_TEST_SUPERVISOR_LOCK"
	envScript  = "UWF_TEST_SUPERVISOR_SCRIPT"
)

func TestMain(m *testing.M) {
	if lock := os.Getenv(envLock); lock != "" {
		os.Exit(startAgent(os.Getenv(envProgram), lock, os.Getenv(envScript)))
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "git-uwf-agent-supervisor-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	program = filepath.Join(dir, "git-uwf-agent-supervisor")
	build := exec.Command("go", "build", "-o", program, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build git-uwf-agent-supervisor:", err)
		return 1
	}
	return m.Run()
}

// startAgent takes an exclusive flock on lock, as a step takes its
// thread's lock, and runs script under the supervisor program holding it,
// as the engine does; it is killed before the script ends.
func startAgent(program, lock, script string) int {
	if program == "" {
		fmt.Fprintln(os.Stderr, envProgram, "is not set")
		return 1
	}
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		fmt.Fprintln(os.Stderr, "lock:", err)
		return 1
	}
	_, err = agentkit.Run(context.Background(), agentkit.Invocation{Command: "sh", Args: []string{"-c", script},
		Supervisor: program, Hold: []*os.File{f}, Timeout: time.Minute})
	fmt.Fprintln(os.Stderr, "the agent ended:", err)
	return 1
}

// TestRunsTheAgent: under the program, the agent gets its stdin, stdout,
// directory and environment, and its exit status or the signal that ended
// it is the run's; it inherits the descriptors it would get spawned
// directly, not the files the supervisor holds.
func TestRunsTheAgent(t *testing.T) {
	dir := t.TempDir()
	held, err := os.Create(filepath.Join(t.TempDir(), "held"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	tests := []struct {
		name       string
		script     string
		stdin      string
		wantOut    string
		wantCode   int
		wantSignal string
	}{
		{"stdio, directory and environment", `cat; pwd; echo "$UWF_X"`, "in\n", "in\n" + dir + "\nx\n", 0, ""},
		{"exit status", `exit 7`, "", "", 7, ""},
		{"killed by a signal", `kill -TERM $$`, "", "", -1, "terminated"},
		{"the descriptors of a direct spawn", `cd /proc/$$/fd && echo *`, "", "", 0, ""},
	}
	direct := func(t *testing.T, script string) string {
		t.Helper()
		res, err := agentkit.Run(context.Background(), agentkit.Invocation{Command: "sh", Args: []string{"-c", script}, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatalf("spawned directly: %v", err)
		}
		return string(res.Stdout)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.script, "/proc") && runtime.GOOS != "linux" {
				t.Skip("lists the descriptors in /proc")
			}
			want := tt.wantOut
			if strings.Contains(tt.script, "/proc") {
				want = direct(t, tt.script)
			}
			res, err := agentkit.Run(context.Background(), agentkit.Invocation{Command: "sh", Args: []string{"-c", tt.script},
				Dir: dir, Stdin: strings.NewReader(tt.stdin), Env: append(os.Environ(), "UWF_X=x"),
				Supervisor: program, Hold: []*os.File{held}, Timeout: 20 * time.Second})
			if res == nil {
				t.Fatalf("no result: %v", err)
			}
			if got := string(res.Stdout); got != want {
				t.Errorf("stdout %q, want %q", got, want)
			}
			if res.ExitCode != tt.wantCode {
				t.Errorf("exit code %d, want %d (%v)", res.ExitCode, tt.wantCode, err)
			}
			ae, _ := errors.AsType[*agentkit.AgentError](err)
			switch {
			case tt.wantCode == 0 && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.wantCode != 0 && ae == nil:
				t.Errorf("error %v, want an *AgentError", err)
			case ae != nil && ae.Signal != tt.wantSignal:
				t.Errorf("signal %q, want %q", ae.Signal, tt.wantSignal)
			}
		})
	}
}

// TestKilledParentTakesTheGroupDown kills the process that started the
// agent with SIGKILL while the agent (a shell with a background child)
// runs: no process of the group is left, and the lock the supervisor held
// is free only once they are all gone.
func TestKilledParentTakesTheGroupDown(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc to tell a zombie from a running process")
	}
	pids := t.TempDir()
	lock := filepath.Join(t.TempDir(), "thread.lock")
	script := `echo $$ > "` + pids + `/agent.tmp" && mv "` + pids + `/agent.tmp" "` + pids + `/agent.pid"
sleep 300 &
echo $! > "` + pids + `/child.tmp" && mv "` + pids + `/child.tmp" "` + pids + `/child.pid"
wait`
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(self, "-test.run=^$")
	parent.Env = append(os.Environ(), envProgram+"="+program, envLock+"="+lock, envScript+"="+script)
	parent.Stderr = os.Stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	agentPID := readPID(t, filepath.Join(pids, "agent.pid"))
	childPID := readPID(t, filepath.Join(pids, "child.pid"))
	t.Cleanup(func() {
		_ = syscall.Kill(agentPID, syscall.SIGKILL)
		_ = syscall.Kill(childPID, syscall.SIGKILL)
	})
	if !running(agentPID) || !running(childPID) {
		t.Fatal("the agent is not running before the kill")
	}
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	killed := time.Now()

	f, err := os.OpenFile(lock, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("the lock is still held 10 s after the kill; agent runs %v, its child runs %v", running(agentPID), running(childPID))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if running(agentPID) || running(childPID) {
		t.Errorf("the lock was free %s after the kill while the agent (%v) or its child (%v) still ran", time.Since(killed), running(agentPID), running(childPID))
	}
}

// TestRunByHand: without the arguments git-uwf passes, the program says
// what it is for and exits 2.
func TestRunByHand(t *testing.T) {
	for _, args := range [][]string{nil, {"--help"}} {
		cmd := exec.Command(program, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 2 {
			t.Errorf("%q: exit %d (%v), want 2", args, code, err)
		}
		if !strings.Contains(stderr.String(), "git-uwf runs this program") {
			t.Errorf("%q: stderr %q does not say what the program is for", args, stderr.String())
		}
	}
}

// running reports whether pid runs (gone and zombie both count as ended).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	return len(f) > 0 && string(f[0]) != "Z" && string(f[0]) != "X"
}

func readPID(t *testing.T, path string) int {
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
