package scheduler

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/git-uwf/git-uwf/config"
)

// DroppedError is a step refused by its workflow's limit: overflow drop
// with every slot taken, or a waiting step discarded from a full queue.
// It is retryable (exit code 75).
type DroppedError struct {
	Workflow string
	Limit    config.WorkflowLimit
	// Discarded is set when the step had waited and was pushed out of the
	// queue by newer ones.
	Discarded bool
}

func (e *DroppedError) Error() string {
	if e.Discarded {
		return fmt.Sprintf("workflow %s: this waiting step was discarded: the queue is full (workflows.%s.maxQueue %d, %d running at once); step it again later",
			e.Workflow, e.Workflow, e.Limit.MaxQueue, e.Limit.Concurrency)
	}
	return fmt.Sprintf("workflow %s already runs %d step(s) at once (workflows.%s.concurrency, overflow drop): step refused; retry later",
		e.Workflow, e.Limit.Concurrency, e.Workflow)
}

// ErrDropped matches every *DroppedError with errors.Is.
var ErrDropped = errors.New("step dropped by its workflow limit")

// Is makes errors.Is(err, ErrDropped) work.
func (e *DroppedError) Is(target error) bool { return target == ErrDropped }

// pollInterval is how often a waiting step looks at the slots.
const pollInterval = 25 * time.Millisecond

// Limiter hands out the slots of per-workflow limits. Its state is only
// files under Dir, so every process of the repository shares it.
type Limiter struct {
	// Dir holds one directory per limited workflow.
	Dir string
	// Now is the clock for queue tickets (nil: time.Now).
	Now func() time.Time
}

// NewLimiter returns the limiter whose files live under uwfDir.
func NewLimiter(uwfDir string) *Limiter {
	return &Limiter{Dir: filepath.Join(uwfDir, "limits")}
}

func (l *Limiter) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// workflowDir names a workflow's directory; the name is hex-encoded so that
// no workflow name can choose a path.
func (l *Limiter) workflowDir(workflow string) string {
	return filepath.Join(l.Dir, fmt.Sprintf("%x", workflow))
}

// Acquire takes a slot of the workflow's limit and returns the function
// that frees it. Without a limit it returns at once. Over the limit it
// waits in the queue (oldest first) or, for overflow drop, fails with a
// *DroppedError; waiting is reported once through onWait (may be nil).
func (l *Limiter) Acquire(ctx context.Context, workflow string, lim config.WorkflowLimit, onWait func()) (release func(), err error) {
	if !lim.Limited() {
		return func() {}, nil
	}
	dir := l.workflowDir(workflow)
	qdir := filepath.Join(dir, "queue")
	if err := os.MkdirAll(qdir, 0o755); err != nil {
		return nil, fmt.Errorf("workflow %s limit: %w", workflow, err)
	}
	if waiting, err := liveTickets(qdir, ""); err != nil {
		return nil, err
	} else if len(waiting) == 0 {
		if rel, ok, err := trySlot(dir, lim.Concurrency); err != nil || ok {
			return rel, err
		}
	}
	if lim.Overflow == config.OverflowDrop {
		return nil, &DroppedError{Workflow: workflow, Limit: lim}
	}
	// Join the queue: a ticket file named by the time, locked for as long
	// as this process waits (a dead waiter's ticket is unlocked, and
	// removed by the next one who looks).
	name := fmt.Sprintf("%020d-%d", l.now().UnixNano(), os.Getpid())
	ticket := filepath.Join(qdir, name)
	// The ticket is locked under a hidden name first, so no other waiter
	// ever sees it unlocked and takes it for a dead one.
	tmp := filepath.Join(qdir, "."+name)
	tl := flock.New(tmp)
	if ok, err := tl.TryLock(); err != nil || !ok {
		os.Remove(tmp)
		return nil, fmt.Errorf("workflow %s queue: lock ticket %s: %v", workflow, name, err)
	}
	if err := os.Rename(tmp, ticket); err != nil {
		os.Remove(tmp)
		_ = tl.Unlock()
		return nil, fmt.Errorf("workflow %s queue: %w", workflow, err)
	}
	leave := func() {
		os.Remove(ticket)
		_ = tl.Unlock()
	}
	if onWait != nil {
		onWait()
	}
	if lim.MaxQueue > 0 {
		if err := discardOldest(qdir, name, lim.MaxQueue); err != nil {
			leave()
			return nil, err
		}
	}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		if _, err := os.Stat(ticket); errors.Is(err, fs.ErrNotExist) {
			_ = tl.Unlock()
			return nil, &DroppedError{Workflow: workflow, Limit: lim, Discarded: true}
		}
		waiting, err := liveTickets(qdir, name)
		if err != nil {
			leave()
			return nil, err
		}
		// The oldest waiters, as many as there are slots, may take one.
		if i := slices.Index(waiting, name); i >= 0 && i < lim.Concurrency {
			rel, ok, err := trySlot(dir, lim.Concurrency)
			if err != nil {
				leave()
				return nil, err
			}
			if ok {
				leave()
				return rel, nil
			}
		}
		select {
		case <-ctx.Done():
			leave()
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// trySlot takes any free slot lock of the n slots without waiting.
func trySlot(dir string, n int) (release func(), ok bool, err error) {
	for i := 0; i < n; i++ {
		fl := flock.New(filepath.Join(dir, "slot-"+strconv.Itoa(i)))
		got, err := fl.TryLock()
		if err != nil {
			return nil, false, fmt.Errorf("take a limit slot: %w", err)
		}
		if got {
			return func() { _ = fl.Unlock() }, true, nil
		}
	}
	return nil, false, nil
}

// Running counts the workflow's slots held right now (by any process).
func (l *Limiter) Running(workflow string, lim config.WorkflowLimit) int {
	n := 0
	for i := 0; i < lim.Concurrency; i++ {
		fl := flock.New(filepath.Join(l.workflowDir(workflow), "slot-"+strconv.Itoa(i)))
		got, err := fl.TryRLock()
		if err == nil && !got {
			n++
		} else if got {
			_ = fl.Unlock()
		}
	}
	return n
}

// liveTickets lists the queue's tickets, oldest first, removing those
// whose waiter is gone (their lock is free). mine is never probed: this
// process holds it.
func liveTickets(qdir, mine string) ([]string, error) {
	ents, err := os.ReadDir(qdir)
	if err != nil {
		return nil, fmt.Errorf("read the queue %s: %w", qdir, err)
	}
	var live []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if name != mine {
			fl := flock.New(filepath.Join(qdir, name))
			got, err := fl.TryRLock()
			if err != nil {
				continue
			}
			if got {
				// Nobody waits on it any more.
				os.Remove(filepath.Join(qdir, name))
				_ = fl.Unlock()
				continue
			}
		}
		live = append(live, name)
	}
	slices.Sort(live)
	return live, nil
}

// discardOldest pushes the oldest waiters out of a queue longer than max:
// their ticket files are removed, which each waiter notices on its next
// look.
func discardOldest(qdir, mine string, max int) error {
	live, err := liveTickets(qdir, mine)
	if err != nil {
		return err
	}
	for i := 0; i < len(live)-max; i++ {
		if err := os.Remove(filepath.Join(qdir, live[i])); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("discard a waiting step: %w", err)
		}
	}
	return nil
}
