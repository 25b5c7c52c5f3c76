package worker

import (
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// TestPlayedThrough: a listed thread at the child id of another listed
// thread's current role is left to its parent; other threads are not.
func TestPlayedThrough(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	head := strings.Repeat("ab", 20)
	parent := chain.ThreadID("01KDYAK3480000000000000000")
	role := "fix"
	childOf := func(role string) chain.ThreadID {
		return chain.ChildID(parent, &chain.Entry{Commit: gitobj.NewHash(head), Time: at}, role)
	}
	summary := func(id chain.ThreadID, status chain.Status, role string) chain.Summary {
		s := chain.Summary{Thread: id, Status: status, HeadCommit: head, CreatedAt: id.Time().UTC(), UpdatedAt: at}
		if role != "" {
			s.CurrentRole = &role
		}
		return s
	}
	tests := []struct {
		name   string
		parent chain.Summary
		other  chain.ThreadID
		want   bool
	}{
		{"child of the parent's current role", summary(parent, chain.StatusIdle, role), childOf(role), true},
		{"child of a failed parent", summary(parent, chain.StatusFailed, role), childOf(role), true},
		{"child of another role", summary(parent, chain.StatusIdle, role), childOf("review"), false},
		{"parent without a current role", summary(parent, chain.StatusCompleted, ""), childOf(role), false},
		{"a thread on no whole second", summary(parent, chain.StatusIdle, role), "01KDYAK348MTF3RZE53JZFY4FF", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			played := playedThrough([]chain.Summary{summary(tt.other, chain.StatusIdle, "worker"), tt.parent})
			if played[tt.other] != tt.want {
				t.Errorf("playedThrough has %s = %v, want %v", tt.other, played[tt.other], tt.want)
			}
			if played[tt.parent.Thread] {
				t.Errorf("playedThrough has the parent %s", tt.parent.Thread)
			}
		})
	}
}
