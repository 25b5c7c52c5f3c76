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

// TestSignalContext: the first SIGINT or SIGTERM cancels signalContext's
// context, and once that is seen, a second signal kills the process the
// default way.
func TestSignalContext(t *testing.T) {
	if os.Getenv(signalChildEnv) != "" {
		ctx, stop := signalContext()
		defer stop()
		fmt.Println("ready")
		<-ctx.Done()
		fmt.Println("cancelled")
		_, _ = io.Copy(io.Discard, os.Stdin) // until killed (the parent keeps stdin open)
		os.Exit(0)
	}
	tests := []struct{ first, second syscall.Signal }{
		{syscall.SIGINT, syscall.SIGINT},
		{syscall.SIGTERM, syscall.SIGTERM},
		{syscall.SIGTERM, syscall.SIGINT},
	}
	for _, tt := range tests {
		t.Run(tt.first.String()+", "+tt.second.String(), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignalContext$")
			cmd.Env = append(os.Environ(), signalChildEnv+"=1")
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
			expect("cancelled")
			if err := cmd.Process.Signal(tt.second); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			ee, ok := errors.AsType[*exec.ExitError](err)
			if !ok {
				t.Fatalf("child after the second signal: %v, want killed by %v", err, tt.second)
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != tt.second {
				t.Errorf("child ended with %v, want killed by %v", ee, tt.second)
			}
		})
	}
}
