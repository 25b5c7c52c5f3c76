package chain_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// TestReadFromCacheAsWalked checks that Read renders the same markdown
// from a warm entry cache (entries made only for the shown steps) as from
// a walk of the commits (cache deleted), for the options that choose
// which steps are shown.
func TestReadFromCacheAsWalked(t *testing.T) {
	ctx := context.Background()
	dir, r, th := startThread(t)
	var aliases []string
	for i := 0; i < 12; i++ {
		e := reviewRound(t, r, th.ID, fmt.Sprintf("change %d", i), fmt.Sprintf("body %d", i))
		aliases = append(aliases, string(e.Node.Alias))
	}
	cur, err := r.Thread(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Cancel(ctx, cur, "enough"); err != nil {
		t.Fatal(err)
	}
	options := []chain.ReadOptions{
		{},
		{Quota: 300},
		{Quota: 100000},
		{Before: aliases[5]},
		{Before: aliases[5], Start: true, Quota: 500},
		{Before: aliases[0]},
	}
	read := func(t *testing.T, warm bool) []string {
		t.Helper()
		r := chaintest.Open(t, dir) // a new process
		th, err := r.CachedThread(ctx, th.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.ReadsFromCache(th.Head.Commit); got != warm {
			t.Fatalf("reads from the cache: %v, want %v", got, warm)
		}
		var out []string
		for _, o := range options {
			md, err := r.Read(ctx, th, o)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, md)
		}
		if _, err := r.Read(ctx, th, chain.ReadOptions{Before: "ZZZZ"}); err == nil {
			t.Error("read before an unknown step: no error")
		}
		return out
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git", "uwf", "cache")); err != nil {
		t.Fatal(err)
	}
	walked := read(t, false) // writes the cache again
	cached := read(t, true)
	for i := range options {
		if walked[i] != cached[i] {
			t.Errorf("options %+v: from the cache\n%s\nwalked\n%s", options[i], cached[i], walked[i])
		}
	}
}
