package scheduler

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
	// A step writes its outcome before it exits; the process stays
	// alive (a zombie at worst) until it is reaped after that, so Wait
	// never sees it gone without an outcome.
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = WriteOutcome(outcome, BackgroundOutcome{ExitCode: 3, Error: "boom"})
		_ = cmd.Wait()
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

// TestPruneAndRemove: Prune keeps the newest runs' logs and outcomes of
// one thread and leaves other threads' alone; Remove deletes all of a
// thread's.
func TestPruneAndRemove(t *testing.T) {
	bg := NewBackgrounds(t.TempDir())
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var logs []string
	for i := range 8 {
		for _, thread := range []string{"T1", "T2"} {
			log, outcome, err := bg.Paths(thread, start.Add(time.Duration(i)*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{log, outcome} {
				if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if thread == "T1" {
				logs = append(logs, log)
			}
		}
	}
	if err := bg.Save(Background{Thread: "T1", PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	count := func(pattern string) int {
		m, _ := filepath.Glob(filepath.Join(bg.Dir, pattern))
		return len(m)
	}
	if err := bg.Prune("T1", 3); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pattern string
		want    int
	}{
		{"T1-*.log", 3}, {"T1-*.outcome.json", 3}, {"T2-*.log", 8}, {"T2-*.outcome.json", 8}, {"T1.json", 1},
	}
	for _, tt := range tests {
		if got := count(tt.pattern); got != tt.want {
			t.Errorf("after Prune(T1, 3): %d files %s, want %d", got, tt.pattern, tt.want)
		}
	}
	for i, log := range logs {
		if _, err := os.Stat(log); (err == nil) != (i >= 5) {
			t.Errorf("log of run %d: %v", i, err)
		}
	}
	if err := bg.Remove("T1"); err != nil {
		t.Fatal(err)
	}
	if got := count("T1*"); got != 0 {
		t.Errorf("after Remove(T1): %d files of T1 left", got)
	}
	if got := count("T2-*"); got != 16 {
		t.Errorf("after Remove(T1): %d files of T2, want 16", got)
	}
}
