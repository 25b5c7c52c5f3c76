package gitrepo

import (
	"os"
	"syscall"
	"testing"
)

func TestWidenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	size := func() int {
		var n uintptr
		rc, err := r.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		if err := rc.Control(func(fd uintptr) {
			n, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, 1032 /* F_GETPIPE_SZ */, 0)
		}); err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	before := size()
	widenPipe(r, 256<<10)
	if got := size(); got < 256<<10 {
		t.Fatalf("pipe buffer %d bytes after widenPipe (was %d), want at least %d", got, before, 256<<10)
	}
	// The file stays usable.
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if _, err := r.Read(buf); err != nil || buf[0] != 'x' {
		t.Fatalf("read %q, %v", buf, err)
	}
}
