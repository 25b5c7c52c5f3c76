package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/gofrs/flock"

	"github.com/git-uwf/git-uwf/internal/atomicfile"
)

// Background is the record of a step started with --background: which
// process runs it, where its log goes and where it writes its outcome.
type Background struct {
	Thread string `json:"thread"`
	PID    int    `json:"pid"`
	// PIDStart is the process's start time as the kernel counts it (0 when
	// unknown): a pid reused by another process has another start time.
	PIDStart    uint64 `json:"pidStart,omitempty"`
	Log         string `json:"log"`
	Outcome     string `json:"outcome"`
	StartedAtMs int64  `json:"startedAtMs"`
}

// Outcome of a background step, written by the step process as it ends.
type BackgroundOutcome struct {
	ExitCode  int    `json:"exitCode"`
	Error     string `json:"error,omitempty"`
	EndedAtMs int64  `json:"endedAtMs"`
}

// Backgrounds are the records of background steps, one per thread, under
// Dir.
type Backgrounds struct{ Dir string }

// NewBackgrounds returns the records of a repository.
func NewBackgrounds(uwfDir string) *Backgrounds {
	return &Backgrounds{Dir: filepath.Join(uwfDir, "background")}
}

func (b *Backgrounds) recordPath(thread string) string {
	return filepath.Join(b.Dir, thread+".json")
}

// Lock takes the thread's background lock, waiting for another holder:
// whoever holds it may check for a running background step and record a
// new one without another start slipping in between. unlock releases it.
func (b *Backgrounds) Lock(thread string) (unlock func(), err error) {
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("background step: %w", err)
	}
	l := flock.New(filepath.Join(b.Dir, thread+".lock"))
	if err := l.Lock(); err != nil {
		return nil, fmt.Errorf("lock the background record of thread %s: %w", thread, err)
	}
	return func() { _ = l.Unlock() }, nil
}

// Paths returns the log and outcome files for a new background step.
func (b *Backgrounds) Paths(thread string, now time.Time) (log, outcome string, err error) {
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return "", "", fmt.Errorf("background step: %w", err)
	}
	stamp := now.UTC().Format("20060102T150405.000")
	log = filepath.Join(b.Dir, thread+"-"+stamp+".log")
	outcome = filepath.Join(b.Dir, thread+"-"+stamp+".outcome.json")
	return log, outcome, nil
}

// KeepRuns is how many earlier background steps of a thread keep their log
// and outcome files: older ones are deleted as a new one starts.
const KeepRuns = 5

// Prune deletes the logs and outcomes of the thread's background steps
// but the newest keep (their names sort by start time).
func (b *Backgrounds) Prune(thread string, keep int) error {
	var errs []error
	for _, pattern := range []string{thread + "-*.log", thread + "-*.outcome.json"} {
		files, err := filepath.Glob(filepath.Join(b.Dir, pattern))
		if err != nil {
			return err
		}
		sort.Strings(files)
		for len(files) > keep {
			if err := os.Remove(files[0]); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			files = files[1:]
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("prune the background logs of thread %s: %w", thread, err)
	}
	return nil
}

// Remove deletes everything recorded of the thread's background steps:
// for a removed thread.
func (b *Backgrounds) Remove(thread string) error {
	files, err := filepath.Glob(filepath.Join(b.Dir, thread+"-*"))
	if err != nil {
		return err
	}
	files = append(files, b.recordPath(thread), filepath.Join(b.Dir, thread+".lock"))
	var errs []error
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove the background records of thread %s: %w", thread, err)
	}
	return nil
}

// Save writes the record of a started background step.
func (b *Backgrounds) Save(rec Background) error {
	rec.PIDStart = processStart(rec.PID)
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(b.recordPath(rec.Thread), data, 0o644); err != nil {
		return fmt.Errorf("record the background step of thread %s: %w", rec.Thread, err)
	}
	return nil
}

// ErrNoBackground: the thread has no background step recorded.
var ErrNoBackground = errors.New("no background step")

// Load reads the record of the thread's last background step.
func (b *Backgrounds) Load(thread string) (*Background, error) {
	data, err := os.ReadFile(b.recordPath(thread))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("thread %s is not running a background step: %w (start one with git uwf thread step %s --background)", thread, ErrNoBackground, thread)
	}
	if err != nil {
		return nil, err
	}
	var rec Background
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("background record of thread %s: %w", thread, err)
	}
	return &rec, nil
}

// Alive reports whether the record's process still runs: the pid exists
// and, where the start time is known, it is the same process.
func (r *Background) Alive() bool {
	if !alive(r.PID) {
		return false
	}
	if r.PIDStart != 0 && processStart(r.PID) != r.PIDStart {
		return false
	}
	return true
}

// ReadOutcome returns the outcome the step process wrote, nil while there
// is none.
func (r *Background) ReadOutcome() (*BackgroundOutcome, error) {
	data, err := os.ReadFile(r.Outcome)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var o BackgroundOutcome
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("outcome of the background step of thread %s: %w", r.Thread, err)
	}
	return &o, nil
}

// WriteOutcome records how a background step ended.
func WriteOutcome(path string, o BackgroundOutcome) error {
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}

// ErrDied is a background step whose process ended without an outcome
// (killed, or the machine restarted).
var ErrDied = errors.New("background step died")

// Wait waits for the background step to end and returns its outcome. A
// process that is gone without an outcome gives ErrDied; ctx bounds the
// wait.
func (r *Background) Wait(ctx context.Context) (*BackgroundOutcome, error) {
	tick := time.NewTicker(pollInterval * 2)
	defer tick.Stop()
	for {
		o, err := r.ReadOutcome()
		if err != nil || o != nil {
			return o, err
		}
		if !r.Alive() {
			// It may have written the outcome just before it ended.
			if o, err := r.ReadOutcome(); err != nil || o != nil {
				return o, err
			}
			return nil, fmt.Errorf("the background step of thread %s (pid %d) ended without an outcome: %w; its log: %s", r.Thread, r.PID, ErrDied, r.Log)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}
