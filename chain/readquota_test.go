package chain_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// TestReadHonoursQuota: one step or task far over the quota is shown cut,
// with a marker that says how to see the rest, so a 5 MB deliverable does
// not become 5 MB of output.
func TestReadHonoursQuota(t *testing.T) {
	big := strings.Repeat("A line of a very long deliverable, with ünïcödé.\n", 5<<20/50)
	tests := []struct {
		name           string
		task, body     string
		summary        string
		quota          int
		wantMarker     string
		wantStepHeader bool
	}{
		{"5 MB deliverable", "small task", big, "ok", 0, "git uwf step read ", true},
		{"5 MB frontmatter value", "small task", "body", big, 0, "git uwf step read ", true},
		{"5 MB task", big, "body", "ok", 0, "git uwf thread show ", true},
		{"small quota", "small task", big, "ok", 10, "git uwf step read ", true},
		{"large quota", "small task", big, "ok", 50000, "git uwf step read ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir, r, info := setup(t)
			th, err := r.StartThread(ctx, info, tt.task, dir)
			if err != nil {
				t.Fatal(err)
			}
			e := chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": tt.summary}, tt.body)
			th, err = r.Thread(ctx, th.ID)
			if err != nil {
				t.Fatal(err)
			}
			md, err := r.Read(ctx, th, chain.ReadOptions{Quota: tt.quota})
			if err != nil {
				t.Fatal(err)
			}
			limit := 100 << 10
			if tt.quota > 0 {
				limit = max(tt.quota, 1000) * 3
			}
			if len(md) >= limit {
				t.Fatalf("read printed %d bytes, want < %d", len(md), limit)
			}
			if !strings.Contains(md, tt.wantMarker) {
				t.Fatalf("no marker %q in:\n%s", tt.wantMarker, md[:min(len(md), 3000)])
			}
			if strings.Contains(tt.wantMarker, "step read") && !strings.Contains(md, tt.wantMarker+string(e.Node.Alias)) {
				t.Fatalf("the marker does not name the step %s", e.Node.Alias)
			}
			if tt.wantStepHeader && !strings.Contains(md, "## Step 1: developer") {
				t.Fatalf("the step header is missing")
			}
			if !strings.Contains(md, "# Thread `"+string(th.ID)+"`") {
				t.Fatalf("the thread header is missing")
			}
		})
	}
}

// TestReadShowsEachRoleOnItsFirstShownStep: a role's goal is printed once,
// on the oldest step shown that plays it, whatever the quota leaves out.
func TestReadShowsEachRoleOnItsFirstShownStep(t *testing.T) {
	ctx := context.Background()
	dir, r, info := setup(t)
	th, err := r.StartThread(ctx, info, "the task", dir)
	if err != nil {
		t.Fatal(err)
	}
	plays := []struct {
		role string
		out  map[string]any
	}{
		{"developer", map[string]any{"$status": "review_needed", "summary": "first try"}},
		{"reviewer", map[string]any{"$status": "rejected", "comments": "tests missing"}},
		{"developer", map[string]any{"$status": "review_needed", "summary": "second try"}},
		{"reviewer", map[string]any{"$status": "approved"}},
	}
	for _, p := range plays {
		chaintest.Step(t, r, th.ID, p.role, p.out, strings.Repeat("body line\n", 20))
	}
	th, err = r.Thread(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		quota int
		// roleAt is the step number whose block must hold each goal.
		roleAt map[string]int
	}{
		{"whole thread", chain.DefaultQuota, map[string]int{"Write the code.": 1, "Review the code.": 2}},
		{"last two steps", 1500, map[string]int{"Write the code.": 3, "Review the code.": 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, err := r.Read(ctx, th, chain.ReadOptions{Quota: tt.quota})
			if err != nil {
				t.Fatal(err)
			}
			blocks := strings.Split(md, "\n## Step ")
			for goal, at := range tt.roleAt {
				if n := strings.Count(md, "<role>\n"+goal+"\n</role>"); n != 1 {
					t.Fatalf("goal %q shown %d times, want once:\n%s", goal, n, md)
				}
				for _, b := range blocks[1:] {
					if strings.Contains(b, goal) && !strings.HasPrefix(b, strconv.Itoa(at)+":") {
						t.Errorf("goal %q is in step %s, want step %d", goal, strings.SplitN(b, ":", 2)[0], at)
					}
				}
			}
		})
	}
}
