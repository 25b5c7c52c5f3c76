package steplog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

func TestFollower(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir, "T1")
	fl := NewFollower(path)
	defer fl.Close()
	read := func() (string, error) {
		b, err := fl.Read(1 << 10)
		return string(b), err
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
		want string
		err  error
	}{
		{name: "no log yet", do: func(*testing.T) {}},
		{name: "a step starts", do: func(t *testing.T) { mustWrite(t, mustCreate(t, dir, "== one"), "a\n") }, want: "== one\na\n"},
		{name: "nothing new", do: func(*testing.T) {}},
		{name: "appended", do: func(t *testing.T) { appendTo(t, path, "b\n") }, want: "b\n"},
		{name: "the next step replaces it", do: func(t *testing.T) { mustCreate(t, dir, "== two").Close() }, err: ErrReplaced},
		{name: "the new log from its start", do: func(*testing.T) {}, want: "== two\n"},
		{name: "removed", do: func(t *testing.T) { os.Remove(path) }, err: ErrReplaced},
		{name: "gone", do: func(*testing.T) {}},
	}
	for _, s := range steps {
		s.do(t)
		got, err := read()
		if !errors.Is(err, s.err) || got != s.want {
			t.Fatalf("%s: got %q, %v; want %q, %v", s.name, got, err, s.want, s.err)
		}
	}
}

func TestSkipExisting(t *testing.T) {
	dir := t.TempDir()
	f := mustCreate(t, dir, "== old")
	mustWrite(t, f, "old output\n")
	fl := NewFollower(Path(dir, "T1"))
	defer fl.Close()
	fl.SkipExisting()
	if b, err := fl.Read(100); len(b) != 0 || err != nil {
		t.Fatalf("read %q, %v after SkipExisting", b, err)
	}
	mustWrite(t, f, "new\n")
	if b, _ := fl.Read(100); string(b) != "new\n" {
		t.Fatalf("read %q, want the appended line", b)
	}
}

// TestFollowUntilDone copies a growing log and stops once done reports
// the step over and everything written has been copied.
func TestFollowUntilDone(t *testing.T) {
	dir := t.TempDir()
	f := mustCreate(t, dir, "== step")
	var out bytes.Buffer
	finished := make(chan struct{})
	go func() {
		for i := range 3 {
			mustWrite(t, f, strings.Repeat("x", i+1)+"\n")
			time.Sleep(20 * time.Millisecond)
		}
		close(finished)
	}()
	done := func() bool {
		select {
		case <-finished:
			return true
		default:
			return false
		}
	}
	if err := Follow(context.Background(), Path(dir, "T1"), &out, 5*time.Millisecond, done); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "== step\nx\nxx\nxxx\n"; got != want {
		t.Fatalf("followed %q, want %q", got, want)
	}
}

func mustCreate(t *testing.T, dir, header string) *os.File {
	t.Helper()
	f, err := Create(dir, "T1", header)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func mustWrite(t *testing.T, w io.Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Error(err)
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mustWrite(t, f, s)
}
