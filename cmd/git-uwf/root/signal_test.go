package root

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// signalChildEnv makes the test binary, run by TestSignalContext, be the
// process that gets the signals.
const signalChildEnv = "GIT_UWF_TEST_SIGNAL_CHILD"

// TestSignalContext: once watching, the first SIGINT or SIGTERM cancels
// signalContext's context, and once that is seen, a second signal kills the
// process the default way; before watching, the first signal kills it.
func TestSignalContext(t *testing.T) {
	if child := os.Getenv(signalChildEnv); child != "" {
		ctx, watch, stop := signalContext()
		defer stop()
		if child == "watch" {
			watch()
		}
		fmt.Println("ready")
		go func() {
			<-ctx.Done()
			fmt.Println("cancelled")
		}()
		_, _ = io.Copy(io.Discard, os.Stdin) // until killed (the parent keeps stdin open)
		os.Exit(0)
	}
	tests := []struct {
		watch         bool
		first, second syscall.Signal // second 0: the first must kill
	}{
		{true, syscall.SIGINT, syscall.SIGINT},
		{true, syscall.SIGTERM, syscall.SIGTERM},
		{true, syscall.SIGTERM, syscall.SIGINT},
		{false, syscall.SIGINT, 0},
		{false, syscall.SIGTERM, 0},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("watching, %v, %v", tt.first, tt.second)
		if !tt.watch {
			name = fmt.Sprintf("not watching, %v", tt.first)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignalContext$")
			child := "no-watch"
			if tt.watch {
				child = "watch"
			}
			cmd.Env = append(os.Environ(), signalChildEnv+"="+child)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Not a timing check: the child waits for stdin, which stays
			// open, so a signal that does not kill it would hang the test.
			hang := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
			defer hang.Stop()
			lines := bufio.NewScanner(stdout)
			expect := func(want string) {
				t.Helper()
				if !lines.Scan() || lines.Text() != want {
					t.Fatalf("child wrote %q (%v), want %q", lines.Text(), lines.Err(), want)
				}
			}
			expect("ready")
			if err := cmd.Process.Signal(tt.first); err != nil {
				t.Fatal(err)
			}
			killer := tt.first
			if tt.second != 0 {
				expect("cancelled")
				if err := cmd.Process.Signal(tt.second); err != nil {
					t.Fatal(err)
				}
				killer = tt.second
			}
			err = cmd.Wait()
			ee, ok := errors.AsType[*exec.ExitError](err)
			if !ok {
				t.Fatalf("child after the last signal: %v, want killed by %v", err, killer)
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != killer {
				t.Errorf("child ended with %v, want killed by %v", ee, killer)
			}
		})
	}
}
