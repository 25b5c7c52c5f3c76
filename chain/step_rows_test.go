package chain_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// TestStepRows checks that the step table's rows say what the fully
// decoded chain says, with the entry cache cold (entries read from git)
// and warm (entries decoded only as far as the row needs), for steps,
// an output status with an escape and a cancel entry.
func TestStepRows(t *testing.T) {
	ctx := context.Background()
	dir, r, th := startThread(t)
	for i := 0; i < 3; i++ {
		reviewRound(t, r, th.ID, fmt.Sprintf("change \"%d\"", i), "body")
	}
	cur, err := r.Thread(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Cancel(ctx, cur, "enough"); err != nil {
		t.Fatal(err)
	}
	for _, cache := range []string{"cold", "warm"} {
		t.Run(cache, func(t *testing.T) {
			r := chaintest.Open(t, dir) // a new process: nothing decoded yet
			cur, err := r.Thread(ctx, th.ID)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := r.StepRows(ctx, cur.Head.Commit)
			if err != nil {
				t.Fatal(err)
			}
			entries, err := chaintest.Open(t, dir).Chain(ctx, cur.Head.Commit)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(entries) || len(rows) != 8 {
				t.Fatalf("%d rows, %d entries, want 8 of each", len(rows), len(entries))
			}
			for i, e := range entries {
				want := chain.StepRow{Kind: e.Kind, Alias: e.Node.Alias, Commit: e.Commit}
				switch e.Kind {
				case chain.KindStep:
					if want.Status, err = r.OutputStatus(e); err != nil {
						t.Fatal(err)
					}
					want.Role, want.Agent = e.Step.Role, e.Step.Agent
					want.DurationMs = e.Step.CompletedAtMs - e.Step.StartedAtMs
				case chain.KindCancel:
					want.Status = "cancelled"
				}
				if rows[i] != want {
					t.Errorf("row %d = %+v, want %+v", i, rows[i], want)
				}
			}
			if rows[7].Kind != chain.KindCancel || rows[1].Status != "review_needed" || rows[2].Role != "reviewer" {
				t.Errorf("rows do not follow the thread: %+v", rows)
			}
		})
	}
}
