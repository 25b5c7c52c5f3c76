//go:build unix

package agentkit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

func agentScript(name string) string {
	return filepath.Join("testdata", "agents", name)
}

// processGone reports whether pid no longer runs (gone or a zombie),
// polling for up to two seconds.
func processGone(t *testing.T, pid int) bool {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i >= 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func firstPID(t *testing.T, res *Result) int {
	t.Helper()
	if res == nil {
		t.Fatal("no result")
	}
	line, _, _ := strings.Cut(string(res.Stdout), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		t.Fatalf("stdout %q does not start with a pid", res.Stdout)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

func TestRunExitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		script     string
		wantCode   int
		wantSignal string
		wantErr    string
		wantOut    string
	}{
		{"success", "echo out; echo err >&2", 0, "", "", "out\n"},
		{"exit 3", "echo partial; echo first >&2; echo '  boom  ' >&2; echo >&2; exit 3", 3, "", `agent "sh" exited with status 3: boom`, "partial\n"},
		{"exit 1 silent", "exit 1", 1, "", `agent "sh" exited with status 1`, ""},
		{"killed", "kill -9 $$", -1, "killed", `agent "sh" killed by signal killed`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(t.Context(), Invocation{Command: "sh", Args: []string{"-c", tt.script}, Timeout: 10 * time.Second})
			if res == nil {
				t.Fatalf("no result, err = %v", err)
			}
			if res.ExitCode != tt.wantCode {
				t.Errorf("exit code = %d, want %d", res.ExitCode, tt.wantCode)
			}
			if string(res.Stdout) != tt.wantOut {
				t.Errorf("stdout = %q, want %q", res.Stdout, tt.wantOut)
			}
			if res.Duration <= 0 {
				t.Errorf("duration = %v", res.Duration)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if string(res.Stderr) != "err\n" {
					t.Errorf("stderr = %q", res.Stderr)
				}
				return
			}
			var ae *AgentError
			if !errors.As(err, &ae) {
				t.Fatalf("error = %v, want *AgentError", err)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("Error() = %q, want %q", err.Error(), tt.wantErr)
			}
			if ae.ExitCode != tt.wantCode || ae.Signal != tt.wantSignal || ae.TimedOut {
				t.Errorf("AgentError = %+v", ae)
			}
		})
	}
}

func TestRunCommandNotFound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		inv  Invocation
	}{
		{"in PATH", Invocation{Command: "no-such-agent-cli-xyz"}},
		{"in given PATH", Invocation{Command: "sh", Env: []string{"PATH=" + t.TempDir()}}},
		{"path", Invocation{Command: "./testdata/agents/missing.sh"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(t.Context(), tt.inv)
			if err == nil || res != nil {
				t.Fatalf("Run = %v, %v; want an error and no result", res, err)
			}
			if !strings.Contains(err.Error(), strconv.Quote(tt.inv.Command)) || !strings.Contains(err.Error(), "not found") {
				t.Errorf("error %q does not name the missing command", err)
			}
		})
	}
	if _, err := Run(t.Context(), Invocation{}); err == nil {
		t.Error("empty command accepted")
	}
	if _, err := Run(t.Context(), Invocation{Command: "sh", Dir: filepath.Join(t.TempDir(), "nope")}); err == nil || !strings.Contains(err.Error(), "working directory") {
		t.Errorf("missing directory: err = %v", err)
	}
}

// Not parallel: a child forked by a parallel test while the script is
// open for writing keeps it busy, and executing it then fails with ETXTBSY.
func TestRunEnvDirAndPathLookup(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake-agent")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"$GREETING from $(pwd)\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	res, err := Run(t.Context(), Invocation{
		Command: "fake-agent",
		Env:     []string{"PATH=" + dir + ":/usr/bin:/bin", "GREETING=hello"},
		Dir:     work,
	})
	if err != nil {
		t.Fatal(err)
	}
	realWork, _ := filepath.EvalSymlinks(work)
	got := strings.TrimSpace(string(res.Stdout))
	if got != "hello from "+work && got != "hello from "+realWork {
		t.Errorf("stdout = %q", got)
	}
}

func TestRunStdin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		stdin *strings.Reader
		want  string
	}{
		{"delivered and closed", strings.NewReader("the prompt\nline two"), "the prompt\nline two"},
		{"nil is empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := Invocation{Command: "cat", Timeout: 5 * time.Second}
			if tt.stdin != nil {
				inv.Stdin = tt.stdin
			}
			res, err := Run(t.Context(), inv)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Stdout) != tt.want {
				t.Errorf("stdout = %q, want %q", res.Stdout, tt.want)
			}
		})
	}
	// A child that never reads its stdin still finishes.
	res, err := Run(t.Context(), Invocation{Command: "true", Stdin: strings.NewReader(strings.Repeat("x", 1<<20))})
	if err != nil || res.ExitCode != 0 {
		t.Errorf("unread stdin: %v, %+v", err, res)
	}
}

// signalWriter collects writes and reports when want has been seen.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func TestRunStreamsStderrLive(t *testing.T) {
	t.Parallel()
	flagFile := filepath.Join(t.TempDir(), "go-on")
	live := &signalWriter{want: "ready\n", seen: make(chan struct{})}
	go func() {
		// The script only finishes once we saw its stderr while it ran.
		select {
		case <-live.seen:
			_ = os.WriteFile(flagFile, nil, 0o644)
		case <-time.After(10 * time.Second):
		}
	}()
	res, err := Run(t.Context(), Invocation{Command: "sh", Args: []string{agentScript("wait-for-file.sh"), flagFile}, Stderr: live, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("Run: %v (stderr was not streamed live?)", err)
	}
	if string(res.Stdout) != "saw "+flagFile+"\n" {
		t.Errorf("stdout = %q", res.Stdout)
	}
	if string(res.Stderr) != "ready\n" {
		t.Errorf("captured stderr = %q", res.Stderr)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestRunIgnoresLiveWriterErrors(t *testing.T) {
	t.Parallel()
	res, err := Run(t.Context(), Invocation{Command: "sh", Args: []string{"-c", "echo a >&2; echo b >&2"}, Stderr: failingWriter{}})
	if err != nil || string(res.Stderr) != "a\nb\n" {
		t.Errorf("Run = %+v, %v", res, err)
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		max    time.Duration
	}{
		{"terminates on SIGTERM", "spawn-and-wait.sh", 2500 * time.Millisecond},
		{"ignores SIGTERM", "ignore-term.sh", killGrace + 2500*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			res, err := Run(t.Context(), Invocation{Command: "sh", Args: []string{agentScript(tt.script)}, Timeout: 300 * time.Millisecond})
			elapsed := time.Since(start)
			pid := firstPID(t, res)
			if elapsed > tt.max {
				t.Errorf("Run took %v, want at most %v", elapsed, tt.max)
			}
			var ae *AgentError
			if !errors.As(err, &ae) || !ae.TimedOut {
				t.Fatalf("error = %v, want a timed-out *AgentError", err)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
			}
			if err.Error() != `agent "sh" timed out after 300ms` {
				t.Errorf("Error() = %q", err.Error())
			}
			if !processGone(t, pid) {
				t.Errorf("grandchild %d still runs", pid)
			}
		})
	}
}

func TestRunContextCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res, err := Run(ctx, Invocation{Command: "sh", Args: []string{agentScript("spawn-and-wait.sh")}})
	if time.Since(start) > 2500*time.Millisecond {
		t.Errorf("Run took %v after cancel", time.Since(start))
	}
	pid := firstPID(t, res)
	var ae *AgentError
	if !errors.As(err, &ae) || ae.TimedOut {
		t.Fatalf("error = %v, want a cancelled *AgentError", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not wrap context.Canceled", err)
	}
	if !processGone(t, pid) {
		t.Errorf("grandchild %d still runs", pid)
	}
}

func TestRunGrandchildHoldingPipes(t *testing.T) {
	t.Parallel()
	start := time.Now()
	res, err := Run(t.Context(), Invocation{Command: "sh", Args: []string{agentScript("leave-grandchild.sh")}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if d := time.Since(start); d > killGrace+2*time.Second {
		t.Errorf("Run took %v", d)
	}
	if res.ExitCode != 0 {
		t.Errorf("exit code = %d", res.ExitCode)
	}
	if pid := firstPID(t, res); !processGone(t, pid) {
		t.Errorf("grandchild %d still runs", pid)
	}
}

func TestRunOutputCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		stream string
	}{
		{"stdout", "head -c 300000000 /dev/zero", "stdout"},
		{"stderr", "head -c 300000000 /dev/zero >&2", "stderr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			res, err := Run(t.Context(), Invocation{Command: "sh", Args: []string{"-c", tt.script}, MaxOutput: 1 << 20, Timeout: 20 * time.Second})
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Run took %v", d)
			}
			if !errors.Is(err, ErrOutputTooLarge) {
				t.Fatalf("error = %v, want ErrOutputTooLarge", err)
			}
			if !strings.Contains(err.Error(), tt.stream) {
				t.Errorf("error %q does not name %s", err, tt.stream)
			}
			got := res.Stdout
			if tt.stream == "stderr" {
				got = res.Stderr
			}
			if len(got) != 1<<20 {
				t.Errorf("kept %d bytes, want %d", len(got), 1<<20)
			}
		})
	}
}

func TestRunStderrTail(t *testing.T) {
	t.Parallel()
	// 3000 three-byte runes: the tail must cut at a rune boundary.
	res, err := Run(t.Context(), Invocation{Command: "sh", Args: []string{"-c", "i=0; while [ $i -lt 300 ]; do printf '€€€€€€€€€€' >&2; i=$((i+1)); done; echo >&2; echo 'last words' >&2; exit 2"}})
	var ae *AgentError
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v", err)
	}
	if len(res.Stderr) != 9000+1+11 {
		t.Errorf("stderr has %d bytes", len(res.Stderr))
	}
	if len(ae.StderrTail) > stderrTailSize || len(ae.StderrTail) < stderrTailSize-3 || !utf8.ValidString(ae.StderrTail) {
		t.Errorf("tail has %d bytes, valid UTF-8 %v", len(ae.StderrTail), utf8.ValidString(ae.StderrTail))
	}
	if !strings.HasSuffix(ae.StderrTail, "last words\n") || !strings.HasSuffix(err.Error(), ": last words") {
		t.Errorf("tail %q / error %q", ae.StderrTail[len(ae.StderrTail)-20:], err)
	}
}

func TestRunNotAnExecutable(t *testing.T) {
	t.Parallel()
	_, err := Run(t.Context(), Invocation{Command: "./testdata"})
	if err == nil || !strings.Contains(err.Error(), "not an executable") {
		t.Errorf("err = %v", err)
	}
	var execErr *exec.Error
	if errors.As(err, &execErr) {
		t.Errorf("unexpected exec.Error %v", execErr)
	}
}
