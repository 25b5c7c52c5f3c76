package scheduler

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestRunPool(t *testing.T) {
	tests := []struct {
		name      string
		threads   int
		jobs      int
		untilDone bool
		stepsEach int // steps until a thread completes
		wantSteps int
	}{
		{"one step each", 5, 2, false, 3, 1},
		{"until done", 5, 3, true, 3, 3},
		{"more jobs than threads", 2, 8, true, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var jobs []Job
			for i := 0; i < tt.threads; i++ {
				jobs = append(jobs, Job{Thread: fmt.Sprintf("t%d", i), Workflow: "w"})
			}
			var mu sync.Mutex
			steps := map[string]int{}
			busy := map[string]bool{}
			running, most := 0, 0
			rows := RunPool(context.Background(), jobs, PoolOptions{Jobs: tt.jobs, UntilDone: tt.untilDone, MaxSteps: 10,
				Step: func(ctx context.Context, j Job) Outcome {
					mu.Lock()
					if busy[j.Thread] {
						t.Errorf("thread %s stepped twice at once", j.Thread)
					}
					busy[j.Thread] = true
					running++
					most = max(most, running)
					mu.Unlock()
					time.Sleep(5 * time.Millisecond)
					mu.Lock()
					defer mu.Unlock()
					busy[j.Thread] = false
					running--
					steps[j.Thread]++
					if steps[j.Thread] >= tt.stepsEach {
						return Outcome{Status: "completed", Stepped: true}
					}
					return Outcome{Status: "idle", Stepped: true}
				}})
			if len(rows) != tt.threads {
				t.Fatalf("%d rows, want %d", len(rows), tt.threads)
			}
			for _, r := range rows {
				if r.Steps != tt.wantSteps {
					t.Errorf("%s: %d steps, want %d", r.Thread, r.Steps, tt.wantSteps)
				}
			}
			if most > tt.jobs {
				t.Errorf("%d steps at once, more than -j %d", most, tt.jobs)
			}
		})
	}
}

func TestRunPoolStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	jobs := []Job{{Thread: "a"}, {Thread: "b"}, {Thread: "c"}}
	rows := RunPool(ctx, jobs, PoolOptions{Jobs: 1, UntilDone: true, MaxSteps: 100,
		Step: func(ctx context.Context, j Job) Outcome {
			cancel()
			return Outcome{Status: "interrupted"}
		}})
	stepped := 0
	for _, r := range rows {
		if r.Status == "interrupted" {
			stepped++
		}
		if r.Steps != 0 {
			t.Errorf("%s: %d steps after the interrupt", r.Thread, r.Steps)
		}
	}
	if stepped != 3 {
		t.Errorf("rows %+v: want all interrupted", rows)
	}
}
