package scheduler

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestBackgroundRecords(t *testing.T) {
	bg := NewBackgrounds(t.TempDir())
	if _, err := bg.Load("01J0000000000000000000000A"); !errors.Is(err, ErrNoBackground) {
		t.Fatalf("Load of an unknown thread = %v", err)
	}
	// A live process that writes its outcome.
	_, outcome, err := bg.Paths("T1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "0.3")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	if err := bg.Save(Background{Thread: "T1", PID: cmd.Process.Pid, Outcome: outcome}); err != nil {
		t.Fatal(err)
	}
	rec, err := bg.Load("T1")
	if err != nil || !rec.Alive() {
		t.Fatalf("record %+v, %v: want alive", rec, err)
	}
	go func() {
		_ = cmd.Wait()
		_ = WriteOutcome(outcome, BackgroundOutcome{ExitCode: 3, Error: "boom"})
	}()
	o, err := rec.Wait(context.Background())
	if err != nil || o.ExitCode != 3 {
		t.Fatalf("Wait = %+v, %v", o, err)
	}

	tests := []struct {
		name string
		rec  Background
	}{
		// A pid that exists (ours) but started at another time: reused.
		{"reused pid", Background{Thread: "T2", PID: os.Getpid(), PIDStart: processStart(os.Getpid()) + 1, Outcome: outcome + ".none"}},
		{"no such process", Background{Thread: "T3", PID: 1 << 30, Outcome: outcome + ".none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rec.PIDStart != 0 && processStart(os.Getpid()) == 0 {
				t.Skip("no process start times here")
			}
			if tt.rec.Alive() {
				t.Fatal("a dead step looks alive")
			}
			if _, err := tt.rec.Wait(context.Background()); !errors.Is(err, ErrDied) {
				t.Errorf("Wait = %v, want ErrDied", err)
			}
		})
	}
}
