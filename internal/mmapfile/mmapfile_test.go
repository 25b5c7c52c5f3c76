package mmapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestMap: a mapping holds the file's bytes, before and after its pages
// are dropped; an empty file is not mapped.
func TestMap(t *testing.T) {
	dir := t.TempDir()
	want := bytes.Repeat([]byte("packed-refs line\n"), 10000)
	tests := []struct {
		name    string
		content []byte
		mapped  bool
	}{
		{"file", want, runtime.GOOS != "windows" && runtime.GOOS != "plan9"},
		{"empty file", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			b := Map(f, int64(len(tt.content)))
			defer Unmap(b)
			if (b != nil) != tt.mapped {
				t.Fatalf("Map of %d bytes: mapped %v, want %v", len(tt.content), b != nil, tt.mapped)
			}
			if b == nil {
				return
			}
			if !bytes.Equal(b, tt.content) {
				t.Fatal("mapping differs from the file")
			}
			DropPages(b)
			if !bytes.Equal(b, tt.content) {
				t.Fatal("mapping differs from the file after its pages were dropped")
			}
		})
	}
	Unmap(nil)
	DropPages(nil)
}
