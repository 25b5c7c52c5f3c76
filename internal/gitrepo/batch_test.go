package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func batchRepo(t *testing.T) (string, *Runner) {
	t.Helper()
	dir := initRepo(t)
	r, err := NewRunner(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, r
}

func TestBatchGet(t *testing.T) {
	for _, buffered := range []bool{false, true} {
		t.Run(fmt.Sprintf("buffered=%v", buffered), func(t *testing.T) { testBatchGet(t, buffered) })
	}
}

func testBatchGet(t *testing.T, buffered bool) {
	dir, r := batchRepo(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB: larger than any buffer
	if err := os.WriteFile(filepath.Join(dir, "big"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "big", "empty")
	git(t, dir, "commit", "-q", "-m", "files")
	bigOID := git(t, dir, "rev-parse", "HEAD:big")

	b, err := r.startBatch(context.Background(), buffered)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	names := []string{"HEAD", bigOID, "HEAD:empty", strings.Repeat("0", 40), "HEAD:nope", "HEAD^{tree}"}
	// Many rounds of many names: the writer must never block the reader.
	for round := 0; round < 2; round++ {
		var ask []string
		for i := 0; i < 40; i++ {
			ask = append(ask, names...)
		}
		got, err := b.Get(ask)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(ask) {
			t.Fatalf("got %d answers for %d names", len(got), len(ask))
		}
		for i := 0; i < len(ask); i += len(names) {
			if o := got[i]; o.Type != "commit" || !bytes.HasPrefix(o.Data, []byte("tree ")) {
				t.Fatalf("HEAD: %+v", o.Type)
			}
			if o := got[i+1]; o.Type != "blob" || o.OID != bigOID || !bytes.Equal(o.Data, big) {
				t.Fatalf("big blob: type %s, %d bytes", o.Type, len(o.Data))
			}
			if o := got[i+2]; o.Type != "blob" || len(o.Data) != 0 || o.Missing {
				t.Fatalf("empty blob: %+v", o)
			}
			if o := got[i+3]; !o.Missing || o.Name != ask[i+3] {
				t.Fatalf("zero oid: %+v", o)
			}
			if o := got[i+4]; !o.Missing {
				t.Fatalf("missing path: %+v", o)
			}
			if o := got[i+5]; o.Type != "tree" {
				t.Fatalf("tree: %+v", o.Type)
			}
		}
	}
	if _, err := b.Get([]string{"a\nb"}); err == nil {
		t.Fatal("a name with a newline was accepted")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
}

func TestBatchKilled(t *testing.T) {
	_, r := batchRepo(t)
	b, err := r.NewBatch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get([]string{"HEAD"}); err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get([]string{"HEAD", "HEAD"}); err == nil || !strings.Contains(err.Error(), "cat-file") {
		t.Fatalf("want an error from a killed cat-file, got %v", err)
	}
	if _, err := b.Get([]string{"HEAD"}); err == nil {
		t.Fatal("a broken batch answered")
	}
	_ = b.Close()
}

func TestBatchContextCancel(t *testing.T) {
	_, r := batchRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	b, err := r.NewBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	names := make([]string, 10000)
	for i := range names {
		names[i] = "HEAD"
	}
	if _, err := b.Get(names); err == nil {
		t.Fatal("a cancelled batch answered everything")
	}
	_ = b.Close()
}

// Several Asks may be outstanding; each Wait gets its own answers whatever
// the order of the Waits, and Close does not hang on answers nobody read.
func TestBatchAskPipelined(t *testing.T) {
	for _, buffered := range []bool{false, true} {
		t.Run(fmt.Sprintf("buffered=%v", buffered), func(t *testing.T) { testBatchAskPipelined(t, buffered) })
	}
}

func testBatchAskPipelined(t *testing.T, buffered bool) {
	dir, r := batchRepo(t)
	big := bytes.Repeat([]byte("fedcba9876543210"), 1<<16) // 1 MiB: fills the pipes
	if err := os.WriteFile(filepath.Join(dir, "big"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "big")
	git(t, dir, "commit", "-q", "-m", "big")
	tests := []struct {
		name  string
		order []int // the order of the Waits; a missing index is never read
	}{
		{"in order", []int{0, 1, 2}},
		{"reversed", []int{2, 1, 0}},
		{"middle first", []int{1, 2, 0}},
		{"last never read", []int{0, 1}},
		{"none read", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := r.startBatch(context.Background(), buffered)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			asks := [][]string{{"HEAD:big", "HEAD"}, {"HEAD:nope", "HEAD:big"}, {"HEAD^{tree}", "HEAD:big", "HEAD:big"}}
			var ps []*Pending
			for _, a := range asks {
				ps = append(ps, b.Ask(a))
			}
			for _, i := range tc.order {
				got, err := ps[i].Wait()
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(asks[i]) {
					t.Fatalf("ask %d: %d answers for %d names", i, len(got), len(asks[i]))
				}
				for j, o := range got {
					if o.Name != asks[i][j] {
						t.Fatalf("ask %d answer %d is for %q, want %q", i, j, o.Name, asks[i][j])
					}
					if asks[i][j] == "HEAD:big" && !bytes.Equal(o.Data, big) {
						t.Fatalf("ask %d answer %d: %d bytes, want the big blob", i, j, len(o.Data))
					}
					if asks[i][j] == "HEAD:nope" && !o.Missing {
						t.Fatalf("ask %d answer %d: want missing", i, j)
					}
				}
			}
			done := make(chan struct{})
			go func() {
				_ = b.Close()
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Close hung with unread answers")
			}
			if len(tc.order) < len(asks) {
				if _, err := ps[len(asks)-1].Wait(); err == nil {
					t.Fatal("an answer left unread before Close was read after it")
				}
			}
		})
	}
}

func TestGitAtLeast(t *testing.T) {
	tests := []struct {
		version string
		want    bool
	}{
		{"git version 2.39.5", true},
		{"git version 2.36.0", true},
		{"git version 2.35.8", false},
		{"git version 3.0.0", true},
		{"git version 1.99.0", false},
		{"git version 2.39.3 (Apple Git-146)", true},
		{"git version 2.45.1.windows.1", true},
		{"git version 2.30", false},
		{"git version x.y", false},
		{"", false},
		{"hub version 2.40.0", false},
	}
	for _, tc := range tests {
		if got := gitAtLeast(tc.version, 2, 36); got != tc.want {
			t.Errorf("gitAtLeast(%q, 2, 36) = %v, want %v", tc.version, got, tc.want)
		}
	}
}

// NewBatches starts independent processes: each answers its own asks.
func TestNewBatches(t *testing.T) {
	_, r := batchRepo(t)
	for _, n := range []int{0, 1, 3} {
		bs, err := r.NewBatches(context.Background(), n)
		if err != nil {
			t.Fatal(err)
		}
		if want := max(n, 1); len(bs) != want {
			t.Fatalf("NewBatches(%d): %d batches, want %d", n, len(bs), want)
		}
		var ps []*Pending
		for i, b := range bs {
			ps = append(ps, b.Ask([]string{"HEAD", fmt.Sprintf("HEAD~%d", i+5), "HEAD^{tree}"}))
		}
		for i := len(ps) - 1; i >= 0; i-- {
			got, err := ps[i].Wait()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 || got[0].Type != "commit" || !got[1].Missing || got[2].Type != "tree" {
				t.Fatalf("batch %d: %+v", i, got)
			}
		}
		for _, b := range bs {
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// AskEach calls its function on every answer, in order, before Wait
// returns, and the answers are read without the caller waiting for them.
func TestBatchAskEach(t *testing.T) {
	for _, buffered := range []bool{false, true} {
		t.Run(fmt.Sprintf("buffered=%v", buffered), func(t *testing.T) {
			_, r := batchRepo(t)
			b, err := r.startBatch(context.Background(), buffered)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			names := []string{"HEAD", "HEAD:nope", "HEAD^{tree}", "HEAD"}
			seen := make([]string, len(names))
			calls := 0
			first := b.AskEach(names, func(i int, o Object) {
				calls++
				seen[i] = o.Name + "/" + o.Type
			})
			second := b.AskEach([]string{"HEAD^{tree}"}, nil)
			if got, err := second.Wait(); err != nil || len(got) != 1 || got[0].Type != "tree" {
				t.Fatalf("second ask: %+v, %v", got, err)
			}
			// The first ask was read before the second, without a Wait.
			select {
			case <-first.ready:
			default:
				t.Fatal("the first ask was not read before the second")
			}
			got, err := first.Wait()
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"HEAD/commit", "HEAD:nope/", "HEAD^{tree}/tree", "HEAD/commit"}
			if calls != len(names) || fmt.Sprint(seen) != fmt.Sprint(want) {
				t.Fatalf("each saw %d answers %q, want %q", calls, seen, want)
			}
			if len(got) != 0 {
				t.Fatalf("Wait returned %d answers that each saw", len(got))
			}
			b.Close()
			if _, err := b.AskEach([]string{"HEAD"}, nil).Wait(); err == nil {
				t.Fatal("a closed batch answered")
			}
		})
	}
}
