//go:build unix

package llmwire_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/internal/llmwire"
)

// program writes a shell script standing in for git-uwf-llm and returns
// its path.
func program(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), llmwire.Program)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

var chat = llmwire.Request{Op: llmwire.OpChat, BaseURL: "http://127.0.0.1:1/v1", Model: "m", User: "hi"}

// TestRunOutcomes: what the program answers, and how it fails, becomes
// the reply or an error that says what happened and names the program.
func TestRunOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		want    llmwire.Reply
		wantErr []string // in the error, in order; nil for success
	}{
		{name: "reply", script: `cat >/dev/null; echo '{"content":"hello"}'`, want: llmwire.Reply{Content: "hello"}},
		{name: "probe reply", script: `cat >/dev/null; echo '{"content":"","reachable":true}'`, want: llmwire.Reply{Reachable: true}},
		{name: "reported error", script: `cat >/dev/null; echo 'chat completion http://x/v1/chat/completions: HTTP 401 Unauthorized: bad key' >&2; exit 1`,
			wantErr: []string{"chat completion http://x/v1/chat/completions: HTTP 401 Unauthorized: bad key"}},
		{name: "garbage", script: `cat >/dev/null; echo '<html>proxy error</html>'`,
			wantErr: []string{"git-uwf-llm", "answered something other than a reply", "<html>proxy error</html>"}},
		{name: "two replies", script: `cat >/dev/null; echo '{"content":"a"}{"content":"b"}'`,
			wantErr: []string{"git-uwf-llm", "something other than a reply"}},
		{name: "empty", script: `cat >/dev/null`, wantErr: []string{"git-uwf-llm", "something other than a reply", "(nothing)"}},
		{name: "crash", script: `cat >/dev/null; echo 'panic: boom' >&2; kill -SEGV $$`,
			wantErr: []string{"git-uwf-llm", "failed", "segmentation fault", "panic: boom"}},
		{name: "exit 1 in silence", script: `exit 1`, wantErr: []string{"git-uwf-llm", "failed", "exit status 1"}},
		{name: "exit 2", script: `echo 'not a request' >&2; exit 2`, wantErr: []string{"git-uwf-llm", "exit status 2", "not a request"}},
		{name: "endless stdout", script: `cat >/dev/null; yes '{"content":"x"}'`, wantErr: []string{"git-uwf-llm", "wrote more than"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llmwire.Run(t.Context(), program(t, tt.script), chat, "")
			if tt.wantErr == nil {
				if err != nil || got != tt.want {
					t.Errorf("Run = %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Run = %+v, want an error", got)
			}
			rest := err.Error()
			for _, w := range tt.wantErr {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q: no %q (in order)", err, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestRunNotInstalled: a program that is not there, or not executable,
// is named with how to install it.
func TestRunNotInstalled(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"", filepath.Join(dir, llmwire.Program), notExec} {
		_, err := llmwire.Run(t.Context(), path, chat, "")
		nie, ok := errors.AsType[*llmwire.NotInstalledError](err)
		if !ok || nie.Path != path {
			t.Errorf("%q: error %v, want a NotInstalledError for it", path, err)
			continue
		}
		want := "not installed at " + path
		if path == "" {
			want = "no path to it was given"
		}
		for _, w := range []string{llmwire.Program, want, "make install", "go install ./cmd/git-uwf-llm"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q does not say %q", path, err, w)
			}
		}
	}
}

// TestRunPassesRequestAndKey: the program gets the request on stdin, no
// arguments, and the API key in its environment only; a key inherited
// from this process is not passed on when the request has none.
func TestRunPassesRequestAndKey(t *testing.T) {
	out := t.TempDir()
	prog := program(t, `cat > "`+out+`/stdin"; echo "$#" > "`+out+`/argc"; tr '\0' '\n' < /proc/$$/cmdline > "`+out+`/cmdline"
printf %s "${GIT_UWF_LLM_API_KEY-unset}" > "`+out+`/key"; echo '{"content":"ok"}'`)
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const key = "sk-secret-KEY-42"
	if _, err := llmwire.Run(t.Context(), prog, chat, key); err != nil {
		t.Fatal(err)
	}
	if got := read("key"); got != key {
		t.Errorf("the program's %s = %q, want the key", llmwire.EnvAPIKey, got)
	}
	if got := strings.TrimSpace(read("argc")); got != "0" {
		t.Errorf("the program got %s arguments, want none", got)
	}
	if _, err := os.Stat("/proc/self/cmdline"); err == nil && strings.Contains(read("cmdline"), key) {
		t.Errorf("the key is on the program's command line: %q", read("cmdline"))
	}
	if got := read("stdin"); !strings.Contains(got, `"op":"chat"`) || !strings.Contains(got, `"user":"hi"`) || strings.Contains(got, key) {
		t.Errorf("the program's stdin = %s", got)
	}

	t.Setenv(llmwire.EnvAPIKey, "inherited")
	if _, err := llmwire.Run(t.Context(), prog, chat, ""); err != nil {
		t.Fatal(err)
	}
	if got := read("key"); got != "unset" {
		t.Errorf("without a key, the program's %s = %q, want it unset", llmwire.EnvAPIKey, got)
	}
}

// runUntilStarted runs a program that writes its pid to a file and then
// sleeps, calls observe with that pid while the program runs, then cancels
// the request; it returns Run's error.
func runUntilStarted(t *testing.T, observe func(pid int)) error {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	prog := program(t, `echo $$ > "`+pidFile+`.tmp" && mv "`+pidFile+`.tmp" "`+pidFile+`"; exec sleep 300`)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if b, err := os.ReadFile(pidFile); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					observe(pid)
					cancel()
					return
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err := llmwire.Run(ctx, prog, chat, "")
	<-done
	return err
}

// TestRunCancelKillsTheProgram: ending the context ends the program, and
// Run returns the context's error.
func TestRunCancelKillsTheProgram(t *testing.T) {
	var pid int
	err := runUntilStarted(t, func(p int) { pid = p })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	// Run has waited for the program: the process is gone (reaped), so
	// signal 0 finds nothing.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the program (pid %d) still exists after Run returned: %v", pid, err)
	}
}

// TestRunProgramInItsOwnGroup: the program runs in a process group of
// its own, so a terminal's Ctrl-C (sent to the foreground group, which
// git-uwf is in) does not reach it: git-uwf cancels the request and kills
// the program, and the interruption is reported as one, not as the
// program's failure.
func TestRunProgramInItsOwnGroup(t *testing.T) {
	var pid, pgid int
	err := runUntilStarted(t, func(p int) {
		pid = p
		var gerr error
		if pgid, gerr = syscall.Getpgid(p); gerr != nil {
			pgid = -1
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if own := syscall.Getpgrp(); pgid == own || pgid != pid {
		t.Errorf("the program (pid %d) ran in process group %d, this process is in %d: want a group of its own", pid, pgid, own)
	}
}

// TestRunWhileThreadsEnd: a program is not killed when a thread of this
// process other than its waiter ends. Linux sends the parent-death signal
// when the thread that started the program ends, and git-uwf ends threads
// (agentkit runs each agent on a goroutine that ends locked to its
// thread); the goroutines below do the same all along.
func TestRunWhileThreadsEnd(t *testing.T) {
	prog := program(t, `cat >/dev/null; sleep 0.2; echo '{"content":"ok"}'`)
	stop := make(chan struct{})
	var churn sync.WaitGroup
	churn.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			ended := make(chan struct{})
			go func() {
				runtime.LockOSThread() // and end locked: the thread ends
				close(ended)
			}()
			<-ended
		}
	})
	defer churn.Wait()
	defer close(stop)

	errs := make(chan error, 40)
	var runs sync.WaitGroup
	for range cap(errs) {
		runs.Go(func() {
			_, err := llmwire.Run(t.Context(), prog, chat, "")
			errs <- err
		})
	}
	runs.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	}
}

// TestChatEndpoint: the chat completion URL under an API root, and the
// form messages show, without the password a base URL may carry.
func TestChatEndpoint(t *testing.T) {
	for _, tc := range []struct{ base, endpoint, shown string }{
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/chat/completions", "http://127.0.0.1:8080/v1/chat/completions"},
		{"http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1/chat/completions", "http://127.0.0.1:8080/v1/chat/completions"},
		{"https://me:s3cret@models.example/v1", "https://me:s3cret@models.example/v1/chat/completions", "https://me:xxxxx@models.example/v1/chat/completions"},
	} {
		endpoint, shown := llmwire.ChatEndpoint(tc.base)
		if endpoint != tc.endpoint || shown != tc.shown {
			t.Errorf("ChatEndpoint(%q) = %q, %q; want %q, %q", tc.base, endpoint, shown, tc.endpoint, tc.shown)
		}
	}
}
