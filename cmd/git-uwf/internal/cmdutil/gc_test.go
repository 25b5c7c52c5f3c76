package cmdutil

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestRelaxGC(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		wantPercent int
		wantLimit   int64
	}{
		{"defaults", nil, 400, 48 << 20},
		{"within a limit", nil, 400, 30 << 20},
		{"GOGC set", map[string]string{"GOGC": "100"}, 100, math.MaxInt64},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, 100, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			percent := debug.SetGCPercent(100)
			limit := debug.SetMemoryLimit(math.MaxInt64)
			defer func() {
				debug.SetGCPercent(percent)
				debug.SetMemoryLimit(limit)
			}()
			getenv := func(k string) string { return tt.env[k] }
			restore := RelaxGC(getenv)
			if tt.wantLimit != 48<<20 && tt.wantLimit != math.MaxInt64 {
				restore()
				restore = RelaxGCWithin(getenv, tt.wantLimit)
			}
			if got := debug.SetGCPercent(-1); got != tt.wantPercent {
				t.Errorf("GC percent %d, want %d", got, tt.wantPercent)
			}
			debug.SetGCPercent(tt.wantPercent)
			if got := debug.SetMemoryLimit(-1); got != tt.wantLimit {
				t.Errorf("memory limit %d, want %d", got, tt.wantLimit)
			}
			restore()
			if got := debug.SetGCPercent(-1); got != 100 {
				t.Errorf("GC percent after restore %d, want 100", got)
			}
			debug.SetGCPercent(100)
			if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
				t.Errorf("memory limit after restore %d", got)
			}
		})
	}
}
