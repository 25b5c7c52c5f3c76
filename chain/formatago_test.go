package chain

import (
	"testing"
	"time"
)

func TestFormatAgo(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		before time.Duration
		want   string
	}{
		{0, "just now"},
		{59 * time.Second, "just now"},
		{5 * time.Minute, "5m ago"},
		{3 * time.Hour, "3h ago"},
		{47 * time.Hour, "47h ago"},
		{4 * 24 * time.Hour, "4d ago"},
	} {
		if got := FormatAgo(now, now.Add(-tc.before)); got != tc.want {
			t.Errorf("FormatAgo(now-%v) = %q, want %q", tc.before, got, tc.want)
		}
	}
}
