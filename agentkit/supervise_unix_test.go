//go:build unix

package agentkit

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSupervisedRunBehavesLikeDirect: under the supervisor a command gets
// the same stdin, stdout, stderr, directory, environment, exit status and
// signal as when it is spawned directly, and it does not inherit the
// files the supervisor holds.
func TestSupervisedRunBehavesLikeDirect(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	held, err := os.CreateTemp(t.TempDir(), "held")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	dir := t.TempDir()
	tests := []struct {
		name       string
		script     string
		stdin      string
		wantOut    string
		wantErr    string // in the error; "" for success
		wantCode   int
		wantSignal string
	}{
		{"stdio and directory", `cat; echo "err" >&2; pwd; echo "$UWF_X"`, "in\n", "in\n" + dir + "\nx\n", "", 0, ""},
		{"exit status", `exit 7`, "", "", "status 7", 7, ""},
		{"killed by a signal", `kill -TERM $$`, "", "", "signal", -1, "terminated"},
		{"no inherited descriptors", `ls /proc/self/fd 2>/dev/null`, "", "same as direct", "", 0, ""},
	}
	direct := map[string]string{}
	for _, tt := range tests {
		for _, supervised := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: " direct", true: " supervised"}[supervised], func(t *testing.T) {
				if strings.Contains(tt.script, "/proc") {
					if _, err := os.Stat("/proc/self/fd"); err != nil {
						t.Skip("no /proc")
					}
				}
				inv := Invocation{Command: "sh", Args: []string{"-c", tt.script}, Dir: dir, Stdin: strings.NewReader(tt.stdin),
					Env: append(os.Environ(), "UWF_X=x"), Timeout: 20 * time.Second}
				if supervised {
					inv.Supervisor, inv.Hold = self, []*os.File{held}
				}
				res, err := Run(context.Background(), inv)
				if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				var ae *AgentError
				if errors.As(err, &ae) && tt.wantSignal != "" && ae.Signal != tt.wantSignal {
					t.Fatalf("signal %q, want %q", ae.Signal, tt.wantSignal)
				}
				if res.ExitCode != tt.wantCode {
					t.Fatalf("exit code %d, want %d", res.ExitCode, tt.wantCode)
				}
				want := tt.wantOut
				if want == "same as direct" {
					want = direct[tt.name]
				}
				if !supervised {
					direct[tt.name] = string(res.Stdout)
				}
				if want != "" && string(res.Stdout) != want {
					t.Fatalf("stdout %q, want %q", res.Stdout, tt.wantOut)
				}
			})
		}
	}
}

// BenchmarkRunSupervised measures what the supervisor adds to starting an
// agent (one more process start) against a direct spawn.
func BenchmarkRunSupervised(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, supervised := range []bool{false, true} {
		b.Run(map[bool]string{false: "direct", true: "supervised"}[supervised], func(b *testing.B) {
			inv := Invocation{Command: "true"}
			if supervised {
				inv.Supervisor = self
			}
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), inv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
