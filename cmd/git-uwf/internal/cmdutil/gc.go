package cmdutil

import (
	"os"
	"runtime/debug"
)

// RelaxGC lets the garbage collector run less often for the rest of a
// short command (a listing, a step), unless the user set GOGC or
// GOMEMLIMIT, and returns what restores the previous settings.
//
// Such a command allocates a few large blocks that live until it ends (the
// refs, a cache file, the summaries, the output), so collecting at the
// default pace (first at 4 MiB) frees next to nothing: a warm listing of
// 10,000 threads collected two or three times, a step twice, and each
// cycle costs more than its CPU time on a busy machine (its stop-the-world
// phases wait for every thread to be scheduled). GOGC=400 removes those
// collections; the 48 MiB soft limit keeps the heap of a command that does
// make garbage (a cold listing) bounded, below 100 MB of peak memory.
func RelaxGC(getenv func(string) string) (restore func()) {
	return RelaxGCWithin(getenv, 48<<20)
}

// RelaxGCWithin is RelaxGC with a soft memory limit of limit bytes: a
// command that knows how much it will keep (a listing, from the number of
// threads) sets one that holds its peak memory down without making the
// collector run all the time, which a limit under what stays live does.
func RelaxGCWithin(getenv func(string) string, limit int64) (restore func()) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(400)
	limit = debug.SetMemoryLimit(limit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}
