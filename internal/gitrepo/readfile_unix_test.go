//go:build unix

package gitrepo

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadLooseLeavesToGit: what cannot be a loose ref git wrote (a
// symbolic link, a file longer than a ref, a FIFO, which must not block)
// is left to git, where the in-process reader used to follow the link and
// read whatever it found to the end.
func TestReadLooseLeavesToGit(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	if err := os.WriteFile(ref, []byte("0123456789abcdef0123456789abcdef01234567\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(ref, link); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, "long")
	if err := os.WriteFile(long, append([]byte("ref: refs/heads/"), bytes.Repeat([]byte("x"), maxLooseRef)...), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	fifoErr := syscall.Mkfifo(fifo, 0o644)
	tests := []struct {
		name      string
		path      string
		found, ok bool
	}{
		{"a loose ref", ref, true, true},
		{"a symbolic link to one", link, false, false},
		{"longer than a ref", long, false, false},
		{"a FIFO", fifo, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == fifo && fifoErr != nil {
				t.Skipf("mkfifo: %v", fifoErr)
			}
			_, found, ok, err := readLoose(tt.path)
			if err != nil || found != tt.found || ok != tt.ok {
				t.Errorf("readLoose = found %v, ok %v, %v; want found %v, ok %v, no error", found, ok, err, tt.found, tt.ok)
			}
		})
	}
}
