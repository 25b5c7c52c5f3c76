package workdir_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/workdir"
)

// layout builds, under a temporary directory:
//
//	top/            the work tree
//	top/sub/dir/
//	top/in-link  -> top/sub       (a link that stays inside)
//	top/out-link -> outside       (a link that leaves)
//	outside/deeper/
func layout(t testing.TB) (top, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	top, outside = filepath.Join(base, "top"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(top, "sub", "dir"), filepath.Join(outside, "deeper")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(top, "sub"), filepath.Join(top, "in-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(top, "out-link")); err != nil {
		t.Fatal(err)
	}
	return top, outside
}

func TestRecord(t *testing.T) {
	top, outside := layout(t)
	cases := []struct {
		name         string
		top, dir     string
		allowOutside bool
		want         string
		outside      bool
	}{
		{name: "top", top: top, dir: top, want: "."},
		{name: "subdirectory", top: top, dir: filepath.Join(top, "sub", "dir"), want: "sub/dir"},
		{name: "link inside is recorded as its target", top: top, dir: filepath.Join(top, "in-link", "dir"), want: "sub/dir"},
		{name: "outside refused", top: top, dir: outside, outside: true},
		{name: "link leading outside refused", top: top, dir: filepath.Join(top, "out-link"), outside: true},
		{name: "dot-dot refused", top: top, dir: filepath.Join(top, "sub", "..", ".."), outside: true},
		{name: "outside allowed is absolute", top: top, dir: outside, allowOutside: true, want: outside},
		{name: "bare repository refuses a directory", top: "", dir: top, outside: true},
		{name: "bare repository with consent", top: "", dir: top, allowOutside: true, want: top},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := workdir.Record(c.top, c.dir, c.allowOutside)
			if c.outside {
				if !errors.Is(err, workdir.ErrOutside) || !strings.Contains(err.Error(), "--"+workdir.OutsideFlag) {
					t.Fatalf("Record(%s) = %q, %v; want an error naming --%s", c.dir, got, err, workdir.OutsideFlag)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Record(%s) = %q, %v; want %q", c.dir, got, err, c.want)
			}
		})
	}
	if _, err := workdir.Record(top, filepath.Join(top, "missing"), false); err == nil {
		t.Error("a missing directory was recorded")
	}
}

func TestResolve(t *testing.T) {
	top, outside := layout(t)
	sub := filepath.Join(top, "sub")
	otherClone := filepath.Join(filepath.Dir(top), "elsewhere", "clone") // an absolute path of another machine
	cases := []struct {
		name string
		step workdir.Step
		want string
		// errHas is a piece of the expected error ("" when none).
		errHas string
	}{
		{name: "empty record is the top", step: workdir.Step{Top: top, Invocation: sub}, want: top},
		{name: "relative record", step: workdir.Step{Top: top, Invocation: top, Recorded: "sub/dir"}, want: filepath.Join(top, "sub", "dir")},
		{name: "relative record ignores the invocation directory", step: workdir.Step{Top: top, Invocation: sub, Recorded: "sub"}, want: sub},
		{name: "location below the record", step: workdir.Step{Top: top, Invocation: top, Recorded: "sub", Location: "dir"}, want: filepath.Join(top, "sub", "dir")},
		{name: "location up but inside", step: workdir.Step{Top: top, Invocation: top, Recorded: "sub/dir", Location: "../.."}, want: top},
		{name: "location escaping", step: workdir.Step{Top: top, Invocation: top, Recorded: "sub/dir", Location: "../../../outside"}, errHas: "fix the edge's location"},
		{name: "location escaping even with consent", step: workdir.Step{Top: top, Invocation: top, Recorded: "sub", Location: "../../outside", AllowOutside: true}, errHas: "outside the work tree"},
		{name: "absolute location outside", step: workdir.Step{Top: top, Invocation: top, Location: outside}, errHas: "outside the work tree"},
		{name: "absolute location inside", step: workdir.Step{Top: top, Invocation: top, Location: sub}, want: sub},
		{name: "location through a link that leaves", step: workdir.Step{Top: top, Invocation: top, Location: "out-link/deeper"}, errHas: "outside the work tree"},
		{name: "location through a link that stays", step: workdir.Step{Top: top, Invocation: top, Location: "in-link/dir"}, want: filepath.Join(top, "sub", "dir")},
		{name: "missing location outside says outside", step: workdir.Step{Top: top, Invocation: top, Location: "../../nowhere"}, errHas: "outside the work tree"},
		{name: "missing location", step: workdir.Step{Top: top, Invocation: top, Location: "nope"}, errHas: "does not exist"},
		{name: "hostile relative record", step: workdir.Step{Top: top, Invocation: top, Recorded: "../outside"}, errHas: "outside the work tree"},
		{name: "record through a link that leaves", step: workdir.Step{Top: top, Invocation: top, Recorded: "out-link"}, errHas: "outside the work tree"},
		{name: "backslash record", step: workdir.Step{Top: top, Invocation: top, Recorded: `sub\dir`}, errHas: "backslash"},
		{name: "legacy absolute record inside", step: workdir.Step{Top: top, Invocation: top, Recorded: filepath.Join(top, "sub", "dir")}, want: filepath.Join(top, "sub", "dir")},
		{name: "legacy absolute record of another clone", step: workdir.Step{Top: top, Invocation: top, Recorded: otherClone}, errHas: "pass --cwd DIR"},
		{name: "absolute record outside that exists", step: workdir.Step{Top: top, Invocation: top, Recorded: outside}, errHas: "pass --cwd DIR"},
		{name: "absolute record outside with consent", step: workdir.Step{Top: top, Invocation: top, Recorded: outside, AllowOutside: true}, want: outside},
		{name: "consent covers what is below", step: workdir.Step{Top: top, Invocation: top, Recorded: outside, Location: "deeper", AllowOutside: true}, want: filepath.Join(outside, "deeper")},
		{name: "override replaces the record", step: workdir.Step{Top: top, Invocation: top, Recorded: "../outside", Override: "sub/dir"}, want: filepath.Join(top, "sub", "dir")},
		{name: "relative override from the invocation directory", step: workdir.Step{Top: top, Invocation: sub, Override: "dir"}, want: filepath.Join(top, "sub", "dir")},
		{name: "override outside refused", step: workdir.Step{Top: top, Invocation: top, Override: outside}, errHas: "--" + workdir.OutsideFlag},
		{name: "override outside with consent", step: workdir.Step{Top: top, Invocation: top, Override: outside, AllowOutside: true}, want: outside},
		{name: "override and location", step: workdir.Step{Top: top, Invocation: top, Override: "sub", Location: "dir"}, want: filepath.Join(top, "sub", "dir")},
		{name: "bare: the invocation directory", step: workdir.Step{Invocation: sub, Recorded: "."}, want: sub},
		{name: "bare: below the invocation directory", step: workdir.Step{Invocation: sub, Location: "dir"}, want: filepath.Join(sub, "dir")},
		{name: "bare: above the invocation directory", step: workdir.Step{Invocation: sub, Location: ".."}, errHas: "bare"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.step.Resolve()
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) {
					t.Fatalf("Resolve() = %q, %v; want an error with %q", got, err, c.errHas)
				}
				if strings.Contains(c.errHas, "outside") && !errors.Is(err, workdir.ErrOutside) {
					t.Errorf("error %v does not wrap ErrOutside", err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Resolve() = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// FuzzResolveConfined: whatever a thread records and an edge renders,
// the directory is inside the work tree or there is an error.
func FuzzResolveConfined(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"sub", "dir"}, {"../outside", ""}, {"sub", "../../outside"},
		{"/etc", ""}, {"out-link", "deeper"}, {"in-link/dir", ".."}, {".", "/tmp"}, {`sub\..\..`, ""}} {
		f.Add(s[0], s[1])
	}
	top, _ := layout(f)
	f.Fuzz(func(t *testing.T, recorded, location string) {
		got, err := workdir.Step{Top: top, Invocation: top, Recorded: recorded, Location: location}.Resolve()
		if err != nil {
			return
		}
		if !workdir.Within(top, got) {
			t.Fatalf("recorded %q, location %q resolved to %s, outside %s", recorded, location, got, top)
		}
	})
}

func TestWithin(t *testing.T) {
	cases := []struct {
		root, path string
		want       bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/a/b", "/a/b/..c", true},
		{"/", "/x", true},
	}
	for _, c := range cases {
		if got := workdir.Within(c.root, c.path); got != c.want {
			t.Errorf("Within(%s, %s) = %v, want %v", c.root, c.path, got, c.want)
		}
	}
}

// BenchmarkResolve measures what confinement adds to a step: resolving the
// top, the directory and its links.
func BenchmarkResolve(b *testing.B) {
	top, _ := layout(b)
	s := workdir.Step{Top: top, Invocation: top, Recorded: "sub", Location: "dir"}
	for b.Loop() {
		if _, err := s.Resolve(); err != nil {
			b.Fatal(err)
		}
	}
}
