package agentkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRunFunc(t *testing.T) {
	tests := []struct {
		name    string
		inv     Invocation
		cancel  bool
		fn      AgentFunc
		code    int
		stdout  string
		wantErr string
		is      error
	}{
		{name: "ok", fn: func(_ context.Context, out, errw io.Writer) int {
			fmt.Fprintln(out, `{"stepHash":"x"}`)
			fmt.Fprintln(errw, "working")
			return 0
		}, stdout: "{\"stepHash\":\"x\"}\n"},
		{name: "non-zero exit", fn: func(_ context.Context, _, errw io.Writer) int {
			fmt.Fprintln(errw, "model refused: quota exceeded")
			return 3
		}, code: 3, wantErr: `agent "self" exited with status 3: model refused: quota exceeded`},
		{name: "too much output", inv: Invocation{MaxOutput: 10}, fn: func(ctx context.Context, out, _ io.Writer) int {
			fmt.Fprint(out, strings.Repeat("x", 25))
			<-ctx.Done() // the overflow cancels the agent
			return 1
		}, code: 1, stdout: strings.Repeat("x", 10), wantErr: "stdout exceeded 10 bytes", is: ErrOutputTooLarge},
		{name: "timeout", inv: Invocation{Timeout: 50 * time.Millisecond}, fn: func(ctx context.Context, _, _ io.Writer) int {
			<-ctx.Done()
			return 1
		}, code: 1, wantErr: `agent "self" timed out after 50ms`, is: context.DeadlineExceeded},
		{name: "cancelled", cancel: true, fn: func(ctx context.Context, _, _ io.Writer) int {
			<-ctx.Done()
			return 1
		}, code: 1, wantErr: "stopped: context canceled", is: context.Canceled},
		{name: "finished despite cancel", cancel: true, fn: func(ctx context.Context, out, _ io.Writer) int {
			<-ctx.Done()
			fmt.Fprint(out, "done")
			return 0
		}, stdout: "done"},
		{name: "ignores cancel", inv: Invocation{Timeout: 20 * time.Millisecond, KillGrace: 20 * time.Millisecond}, fn: func(_ context.Context, out, _ io.Writer) int {
			time.Sleep(300 * time.Millisecond)
			fmt.Fprint(out, "too late")
			return 0
		}, code: -1, wantErr: "timed out", is: context.DeadlineExceeded},
		{name: "panic", fn: func(context.Context, io.Writer, io.Writer) int { panic("boom") },
			code: 2, wantErr: `exited with status 2: panic: boom`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				time.AfterFunc(20*time.Millisecond, cancel)
			}
			inv := tt.inv
			inv.Command = "self"
			var live bytes.Buffer
			inv.Stderr = &live
			start := time.Now()
			res, err := RunFunc(ctx, inv, tt.fn)
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
			if res == nil {
				t.Fatalf("no result (err %v)", err)
			}
			if res.ExitCode != tt.code || string(res.Stdout) != tt.stdout {
				t.Errorf("exit %d stdout %q, want %d %q", res.ExitCode, res.Stdout, tt.code, tt.stdout)
			}
			if !bytes.Equal(live.Bytes(), res.Stderr) {
				t.Errorf("live stderr %q, captured %q", live.Bytes(), res.Stderr)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			var ae *AgentError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want an AgentError containing %q", err, tt.wantErr)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
		})
	}
}
