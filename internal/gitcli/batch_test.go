package gitcli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

	b, err := r.NewBatch(context.Background())
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
