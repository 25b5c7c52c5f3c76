package builtins

import (
	"strings"
	"testing"
)

func TestUsableSessionID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"0b5c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3", true},
		{"ses_01J9ZK3Q.abc:1", true},
		{"", false},
		{"--dangerously-skip-permissions", false},
		{"-x", false},
		{"id with space", false},
		{"id\x00nul", false},
		{"a/../b", false},
		{strings.Repeat("a", maxSessionID), true},
		{strings.Repeat("a", maxSessionID+1), false},
	}
	for _, tt := range tests {
		if got := usableSessionID(tt.id); got != tt.want {
			t.Errorf("usableSessionID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}
