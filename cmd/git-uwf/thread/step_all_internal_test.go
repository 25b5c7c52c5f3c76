package thread

import "testing"

func TestStepError(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{"worker · mock …\nworker · mock: failed in 1s\nerror: step failed: boom\n", "step failed: boom"},
		{"error: thread X is busy\n", "thread X is busy"},
		{"progress\nkilled\n", "killed"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := stepError(tt.stderr); got != tt.want {
			t.Errorf("stepError(%q) = %q, want %q", tt.stderr, got, tt.want)
		}
	}
}
