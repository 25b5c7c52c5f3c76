// Package steplog is the live output log of a running step:
// $GIT_COMMON_DIR/uwf/logs/<thread>.log holds what the agent of the
// thread's current (or last) step wrote to its stderr, so that `thread
// watch` and the web viewer can follow a step started in another
// terminal. The file is derived data: it is replaced when the next step
// starts and deleting it loses nothing recorded in git.
package steplog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Path is the log file of thread id under uwfDir ($GIT_COMMON_DIR/uwf).
func Path(uwfDir, id string) string {
	return filepath.Join(uwfDir, "logs", id+".log")
}

// Create starts a new log for a step of thread id, replacing the last
// step's, and writes a header line naming the step.
func Create(uwfDir, id, header string) (*os.File, error) {
	path := Path(uwfDir, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("step log: %w", err)
	}
	// Replace through a new file so a follower holding the old one sees
	// it end instead of seeing it truncated under it.
	tmp := path + ".new"
	// Only the owner reads it: it holds the agent's unredacted stderr.
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("step log: %w", err)
	}
	if err := f.Chmod(0o600); err != nil { // a leftover .new keeps its mode
		f.Close()
		return nil, fmt.Errorf("step log: %w", err)
	}
	if header != "" {
		if _, err := io.WriteString(f, header+"\n"); err != nil {
			f.Close()
			return nil, fmt.Errorf("step log: %w", err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		f.Close()
		return nil, fmt.Errorf("step log: %w", err)
	}
	return f, nil
}

// Follower reads a step log as it grows, and starts over when the log is
// replaced by the next step's.
type Follower struct {
	path string
	f    *os.File
	info os.FileInfo
}

// NewFollower follows the log at path (which need not exist yet).
func NewFollower(path string) *Follower { return &Follower{path: path} }

// ErrReplaced reports the log being replaced by a new step's (or removed)
// since the last Read; the next Read returns the new log from its start.
var ErrReplaced = errors.New("step log replaced")

// Read returns what was appended since the last call (at most max bytes;
// from the start on the first call), or ErrReplaced when the file the
// follower had open is no longer the log. It returns no data and no error
// when there is nothing new.
func (fl *Follower) Read(max int) ([]byte, error) {
	cur, err := os.Stat(fl.path)
	if fl.f != nil && (err != nil || !os.SameFile(cur, fl.info)) {
		// Drain what the old file still holds before switching.
		if b, _ := readSome(fl.f, max); len(b) > 0 {
			return b, nil
		}
		fl.f.Close()
		fl.f = nil
		return nil, ErrReplaced
	}
	if fl.f == nil {
		if err != nil {
			return nil, nil // no log yet
		}
		f, err := os.Open(fl.path)
		if err != nil {
			return nil, nil
		}
		fl.f, fl.info = f, cur
	}
	return readSome(fl.f, max)
}

// SkipExisting makes the follower start at the current end of the log:
// only what is appended from now on (and the next step's log) is read.
func (fl *Follower) SkipExisting() {
	if fl.f != nil {
		return
	}
	f, err := os.Open(fl.path)
	if err != nil {
		return
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return
	}
	fl.f, fl.info = f, info
}

// Close releases the open log.
func (fl *Follower) Close() {
	if fl.f != nil {
		fl.f.Close()
		fl.f = nil
	}
}

func readSome(f *os.File, max int) ([]byte, error) {
	buf := make([]byte, max)
	n, err := f.Read(buf)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return buf[:n], err
}

// Follow copies the log at path to w as it grows until ctx ends or done
// returns true after the log has been drained (the step finished). It
// polls every interval.
func Follow(ctx context.Context, path string, w io.Writer, interval time.Duration, done func() bool) error {
	fl := NewFollower(path)
	defer fl.Close()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		// Ask first, drain second: what was written before the step
		// ended is all copied before returning.
		finished := done != nil && done()
		for {
			b, err := fl.Read(64 << 10)
			if errors.Is(err, ErrReplaced) {
				continue
			}
			if err != nil {
				return err
			}
			if len(b) == 0 {
				break
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		if finished {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
