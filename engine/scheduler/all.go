package scheduler

import (
	"context"
	"sync"
	"time"
)

// Outcome is what one step of a thread came to.
type Outcome struct {
	// Status is the thread's status after the step ("idle", "completed",
	// "suspended", …) or what stopped it: "failed", "busy", "dropped",
	// "cancelled", "interrupted".
	Status string
	// Stepped is true when the step was appended to the thread.
	Stepped bool
	// Err is the step's error message ("" on success).
	Err string
}

// Row is one thread's line in the summary of a run.
type Row struct {
	Thread   string        `json:"thread"`
	Workflow string        `json:"workflow"`
	Steps    int           `json:"steps"`
	Status   string        `json:"status"`
	Error    string        `json:"error,omitempty"`
	Elapsed  time.Duration `json:"-"`
	// ElapsedMs is Elapsed for JSON.
	ElapsedMs int64 `json:"elapsedMs"`
}

// Job is a thread to step.
type Job struct {
	Thread, Workflow string
}

// PoolOptions configure RunPool.
type PoolOptions struct {
	// Jobs is the number of steps run at once (at least 1).
	Jobs int
	// UntilDone steps each thread again while it stays idle, up to MaxSteps.
	UntilDone bool
	MaxSteps  int
	// Step runs one step of a thread.
	Step func(ctx context.Context, j Job) Outcome
	// Started and Finished report progress (may be nil); they are called
	// from the pool's goroutines, one at a time.
	Started  func(j Job)
	Finished func(j Job, o Outcome, took time.Duration)
}

// RunPool steps the jobs, opts.Jobs at a time, never two steps of one
// thread at once, and returns one row per job in the order given. When ctx
// is done no new step starts; the running ones end as Step makes them.
func RunPool(ctx context.Context, jobs []Job, opts PoolOptions) []Row {
	if opts.Jobs < 1 {
		opts.Jobs = 1
	}
	if opts.MaxSteps < 1 {
		opts.MaxSteps = 1
	}
	rows := make([]Row, len(jobs))
	starts := make([]time.Time, len(jobs))
	for i, j := range jobs {
		rows[i] = Row{Thread: j.Thread, Workflow: j.Workflow, Status: "idle"}
	}
	// Each thread is in the queue at most once: a thread that stays idle
	// goes back to the end after its step, so threads take turns.
	queue := make(chan int, len(jobs))
	for i := range jobs {
		queue <- i
	}
	var (
		mu      sync.Mutex // guards rows, pending and the callbacks
		pending = len(jobs)
		wg      sync.WaitGroup
	)
	done := make(chan struct{})
	if pending == 0 {
		close(done)
	}
	finish := func() {
		pending--
		if pending == 0 {
			close(done)
		}
	}
	for w := 0; w < opts.Jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var i int
				select {
				case <-done:
					return
				case i = <-queue:
				}
				j := jobs[i]
				mu.Lock()
				if ctx.Err() != nil {
					if rows[i].Status == "idle" && rows[i].Steps == 0 {
						rows[i].Status = "interrupted"
					}
					finish()
					mu.Unlock()
					continue
				}
				if starts[i].IsZero() {
					starts[i] = time.Now()
				}
				if opts.Started != nil {
					opts.Started(j)
				}
				mu.Unlock()
				began := time.Now()
				o := opts.Step(ctx, j)
				took := time.Since(began)
				mu.Lock()
				r := &rows[i]
				if o.Stepped {
					r.Steps++
				}
				r.Status, r.Error = o.Status, o.Err
				r.Elapsed = time.Since(starts[i])
				r.ElapsedMs = r.Elapsed.Milliseconds()
				if opts.Finished != nil {
					opts.Finished(j, o, took)
				}
				again := opts.UntilDone && o.Stepped && o.Status == "idle" && r.Steps < opts.MaxSteps && ctx.Err() == nil
				if again {
					queue <- i
				} else {
					finish()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return rows
}
