package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// waitPacking waits until no `git pack-refs` runs in dir any more, as left
// running in the background by a git uwf fetch or push of many refs, and
// returns when it saw the last one (start when there was none). A sample
// waits for it so that the packing does not run beside the next sample.
func waitPacking(dir string, start time.Time) (time.Time, error) {
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return time.Time{}, err
	}
	last, deadline := start, time.Now().Add(2*time.Minute)
	for packingIn(dir) {
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("git pack-refs still runs in %s after two minutes", dir)
		}
		time.Sleep(time.Millisecond)
		last = time.Now()
	}
	return last, nil
}

// packingIn reports whether a process runs git pack-refs in dir.
func packingIn(dir string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if cwd, err := os.Readlink(filepath.Join(p, "cwd")); err != nil || cwd != dir {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte("\x00pack-refs\x00")) {
			return true
		}
	}
	return false
}
