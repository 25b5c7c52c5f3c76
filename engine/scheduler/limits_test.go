package scheduler

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/config"
)

func TestLimiterHoldsTheLimit(t *testing.T) {
	tests := []struct {
		name        string
		concurrency int
		steps       int
	}{
		{"one at a time", 1, 4},
		{"two at a time", 2, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLimiter(t.TempDir())
			lim := config.WorkflowLimit{Concurrency: tt.concurrency, Overflow: config.OverflowQueue}
			var running, most atomic.Int32
			var wg sync.WaitGroup
			for i := 0; i < tt.steps; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					release, err := l.Acquire(context.Background(), "w", lim, nil)
					if err != nil {
						t.Error(err)
						return
					}
					n := running.Add(1)
					for {
						m := most.Load()
						if n <= m || most.CompareAndSwap(m, n) {
							break
						}
					}
					time.Sleep(30 * time.Millisecond)
					running.Add(-1)
					release()
				}()
			}
			wg.Wait()
			if got := int(most.Load()); got != tt.concurrency {
				t.Errorf("at most %d ran at once, want %d", got, tt.concurrency)
			}
		})
	}
}

func TestLimiterDrop(t *testing.T) {
	l := NewLimiter(t.TempDir())
	lim := config.WorkflowLimit{Concurrency: 1, Overflow: config.OverflowDrop}
	release, err := l.Acquire(context.Background(), "w", lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := l.Running("w", lim); n != 1 {
		t.Errorf("Running = %d, want 1", n)
	}
	_, err = l.Acquire(context.Background(), "w", lim, nil)
	var de *DroppedError
	if !errors.As(err, &de) || de.Discarded || !errors.Is(err, ErrDropped) {
		t.Fatalf("second Acquire = %v, want a drop", err)
	}
	release()
	release, err = l.Acquire(context.Background(), "w", lim, nil)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	release()
	// Another workflow has its own slots.
	r2, err := l.Acquire(context.Background(), "other", lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2()
}

func TestLimiterQueueDiscardsTheOldest(t *testing.T) {
	l := NewLimiter(t.TempDir())
	lim := config.WorkflowLimit{Concurrency: 1, Overflow: config.OverflowQueue, MaxQueue: 1}
	release, err := l.Acquire(context.Background(), "w", lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	waiting := make(chan struct{})
	go func() {
		r, err := l.Acquire(context.Background(), "w", lim, func() { close(waiting) })
		if err == nil {
			r()
		}
		first <- err
	}()
	<-waiting
	second := make(chan error, 1)
	go func() {
		r, err := l.Acquire(context.Background(), "w", lim, nil)
		if err == nil {
			r()
		}
		second <- err
	}()
	// The second waiter pushes the first out of the one-place queue.
	select {
	case err := <-first:
		var de *DroppedError
		if !errors.As(err, &de) || !de.Discarded {
			t.Fatalf("first waiter: %v, want discarded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first waiter was not discarded")
	}
	release()
	if err := <-second; err != nil {
		t.Fatalf("second waiter: %v", err)
	}
}

func TestLimiterWaiterGivesUpOnCancel(t *testing.T) {
	l := NewLimiter(t.TempDir())
	lim := config.WorkflowLimit{Concurrency: 1, Overflow: config.OverflowQueue}
	release, err := l.Acquire(context.Background(), "w", lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(ctx, "w", lim, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire = %v, want the context's error", err)
	}
	// Its ticket is gone: nothing waits in the queue.
	live, err := liveTickets(l.workflowDir("w")+"/queue", "")
	if err != nil || len(live) != 0 {
		t.Errorf("queue after cancel: %v, %v", live, err)
	}
}

func TestLimiterWithoutLimit(t *testing.T) {
	l := NewLimiter(t.TempDir())
	for i := 0; i < 3; i++ {
		if _, err := l.Acquire(context.Background(), "w", config.WorkflowLimit{}, nil); err != nil {
			t.Fatal(err)
		}
	}
}
