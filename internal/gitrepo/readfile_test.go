package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestReadSmallFile checks that readSmallFile answers as os.ReadFile does
// for what it reads: the same bytes for files shorter and longer than its
// first buffer, and errors that say the same thing (missing, a directory).
func TestReadSmallFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
	}{
		{"loose ref", write("ref", []byte("0123456789abcdef0123456789abcdef01234567\n"))},
		{"symbolic ref", write("sym", []byte("ref: refs/heads/main\n"))},
		{"empty", write("empty", nil)},
		{"exactly the first buffer", write("128", bytes.Repeat([]byte("a"), 128))},
		{"many buffers", write("big", bytes.Repeat([]byte("0123456789"), 800))},
		{"missing", filepath.Join(dir, "missing")},
		{"a directory", sub},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := os.ReadFile(tt.path)
			got, err := readSmallFile(tt.path, maxLooseRef)
			if !bytes.Equal(got, want) {
				t.Errorf("read %d bytes, want %d (%q…)", len(got), len(want), got[:min(len(got), 20)])
			}
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("error %v, os.ReadFile's %v", err, wantErr)
			}
			if err == nil {
				return
			}
			var pe, wantPE *fs.PathError
			if !errors.As(err, &pe) || !errors.As(wantErr, &wantPE) {
				t.Fatalf("error %v is not a *fs.PathError like %v", err, wantErr)
			}
			if pe.Path != wantPE.Path || !errors.Is(pe.Err, wantPE.Err) {
				t.Errorf("error %v, os.ReadFile's %v", err, wantErr)
			}
			if errors.Is(err, fs.ErrNotExist) != errors.Is(wantErr, fs.ErrNotExist) {
				t.Errorf("errors.Is(%v, fs.ErrNotExist) differs from os.ReadFile's", err)
			}
		})
	}
}

// TestReadSmallFileLimit: a file of up to limit bytes is read whole, one
// byte more is errTooLarge, also where limit is a size the buffer grows
// through.
func TestReadSmallFileLimit(t *testing.T) {
	dir := t.TempDir()
	for _, limit := range []int{41, 128, 256, maxLooseRef} {
		for _, size := range []int{limit - 1, limit, limit + 1} {
			t.Run(fmt.Sprintf("%d of at most %d bytes", size, limit), func(t *testing.T) {
				path := filepath.Join(dir, fmt.Sprintf("%d-%d", limit, size))
				want := bytes.Repeat([]byte("r"), size)
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := readSmallFile(path, limit)
				switch {
				case size > limit && !errors.Is(err, errTooLarge):
					t.Errorf("read %d bytes, %v; want errTooLarge", len(got), err)
				case size <= limit && (err != nil || !bytes.Equal(got, want)):
					t.Errorf("read %d bytes, %v; want all %d", len(got), err, size)
				}
			})
		}
	}
}
