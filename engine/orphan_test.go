package engine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/engine"
)

// running reports whether pid is a process that still runs: neither gone
// nor a zombie waiting to be reaped.
func running(pid int) bool {
	if runtime.GOOS == "linux" {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		i := bytes.LastIndexByte(stat, ')')
		f := bytes.Fields(stat[i+1:])
		return len(f) > 0 && string(f[0]) != "Z" && string(f[0]) != "X"
	}
	return syscall.Kill(pid, 0) == nil
}

func waitForFile(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err == nil {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the agent never wrote %s", path)
	return 0
}

// TestKilledStepTakesItsAgentsDown kills the `thread step` process with
// SIGKILL while its agent (a shell that started a background sleep) runs.
// Supervised, no process of the agent's group runs a second later, and
// the thread lock is only free again once they are all gone, so a retried
// step never runs beside an orphan. Spawned directly, only the parent-death
// signal protects: the agent itself dies, its background child does not.
func TestKilledStepTakesItsAgentsDown(t *testing.T) {
	tests := []struct {
		name       string
		supervised bool
	}{
		{"supervised", true},
		{"parent-death signal only", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.supervised && runtime.GOOS != "linux" {
				t.Skip("the parent-death signal is Linux only")
			}
			fx := newFixture(t)
			self, _ := os.Executable()
			pids := t.TempDir()
			script := `echo $$ > "` + pids + `/agent.pid.tmp" && mv "` + pids + `/agent.pid.tmp" "` + pids + `/agent.pid"
sleep 300 &
echo $! > "` + pids + `/child.pid.tmp" && mv "` + pids + `/child.pid.tmp" "` + pids + `/child.pid"
wait`
			cmd := exec.Command(self, "-test.run=^$")
			cmd.Dir = fx.dir
			cmd.Env = append(os.Environ(), "UWF_TEST_ENGINE="+string(fx.id), "UWF_TEST_AGENT_SH="+script)
			if tt.supervised {
				cmd.Env = append(cmd.Env, "UWF_TEST_SUPERVISE=1")
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			agentPID := waitForFile(t, filepath.Join(pids, "agent.pid"))
			childPID := waitForFile(t, filepath.Join(pids, "child.pid"))
			t.Cleanup(func() {
				_ = syscall.Kill(agentPID, syscall.SIGKILL)
				_ = syscall.Kill(childPID, syscall.SIGKILL)
			})
			if !running(agentPID) || !running(childPID) {
				t.Fatal("the agent is not running before the kill")
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			killed := time.Now()

			// Take the thread lock as a retried step would, as soon as it
			// is free: by then no agent process may run.
			var unlock func()
			for {
				u, err := fx.repo.LockThread(fx.id)
				if err == nil {
					unlock = u
					break
				}
				if !errors.Is(err, chain.ErrBusy) {
					t.Fatal(err)
				}
				if time.Since(killed) > 10*time.Second {
					t.Fatal("the thread lock was never released")
				}
				time.Sleep(time.Millisecond)
			}
			lockFree := time.Since(killed)
			if tt.supervised && (running(agentPID) || running(childPID)) {
				t.Errorf("the thread lock was free after %s while the agent (%v) or its child (%v) still ran",
					lockFree, running(agentPID), running(childPID))
			}
			unlock()
			time.Sleep(time.Until(killed.Add(time.Second)))
			switch {
			case running(agentPID):
				t.Errorf("the agent (pid %d) still runs a second after its step process was killed", agentPID)
			case tt.supervised && running(childPID):
				t.Errorf("the agent's child (pid %d) still runs a second after the step process was killed", childPID)
			}
			t.Logf("lock free %s after the kill; agent running %v, its child running %v", lockFree, running(agentPID), running(childPID))
			// The thread steps on.
			if _, err := fx.eng.Step(context.Background(), fx.id, engineStepOptions()); err != nil {
				t.Fatalf("step after the kill: %v", err)
			}
		})
	}
}

func engineStepOptions() engine.StepOptions {
	return engine.StepOptions{Agent: agent("script", loopScript)}
}
