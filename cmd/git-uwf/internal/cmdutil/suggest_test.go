package cmdutil

import "testing"

func TestSuggest(t *testing.T) {
	cmds := []string{"thread", "step", "workflow", "cas", "fetch", "push", "sync", "serve", "list", "show"}
	tests := []struct {
		input, want string
	}{
		{"thred", "thread"},
		{"treahd", "thread"},
		{"lst", "list"},
		{"shwo", "show"},
		{"workflwo", "workflow"},
		{"serv", "serve"},
		{"THREAD", "thread"},
		{"xyz", ""},
		{"completely-different", ""},
		{"thread", ""}, // exact match: nothing to suggest
		{"01M86ZS9DC35Q0JVHZ5DQV1FAX", "01M86ZS9DC35Q0JVHZ5DQV1FAH"},
	}
	cands := append(cmds, "01M86ZS9DC35Q0JVHZ5DQV1FAH", "01M86ZSC55F9HZ41Q4V4ZSMZ0J")
	for _, tt := range tests {
		if got := Suggest(tt.input, cands); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.input, got, tt.want)
		}
	}
	if got := DidYouMean("thred", cmds); got != ` (did you mean "thread"?)` {
		t.Errorf("DidYouMean = %q", got)
	}
}
