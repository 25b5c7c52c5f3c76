// Package workdir decides the directory an agent runs in, and what a
// thread records about it.
//
// A thread records its directory relative to the top of the work tree
// (slash-separated, "." for the top itself), so that every clone resolves
// it against its own top. A step runs in that directory, moved by the
// edge's location (relative to it), or in the directory given for the run
// (--cwd). Whatever the source, the final directory must lie inside the
// local work tree once symbolic links are resolved; only the user's own
// explicit consent (--outside-worktree, given on the command line of this
// run) lets a step run in a directory outside it, and then only inside the
// directory that consent was given for.
//
// In a bare repository there is no work tree: the directory the command
// runs in plays its part.
package workdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is wrapped by every error about a directory outside the work
// tree.
var ErrOutside = errors.New("outside the work tree")

// OutsideFlag is the name of the flag that allows a directory outside the
// work tree (without its dashes).
const OutsideFlag = "outside-worktree"

// Top is the record of the top of the work tree itself.
const Top = "."

// Real returns the absolute path of dir with every symbolic link resolved.
func Real(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Within reports whether path is root or below it. Both must be clean
// absolute paths (as Real returns).
func Within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// Record returns what a thread stores for dir, an existing directory: its
// slash-separated path relative to top (the work tree's top; "" in a bare
// repository), Top for the top itself. A directory outside the work tree
// is refused with ErrOutside unless allowOutside is set; it is then stored
// as its absolute path.
func Record(top, dir string, allowOutside bool) (string, error) {
	real, err := Real(dir)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	if top != "" {
		realTop, err := Real(top)
		if err != nil {
			return "", fmt.Errorf("work tree %s: %w", top, err)
		}
		if Within(realTop, real) {
			rel, err := filepath.Rel(realTop, real)
			if err != nil {
				return "", err
			}
			return filepath.ToSlash(rel), nil
		}
	}
	if !allowOutside {
		where := "this repository has no work tree"
		if top != "" {
			where = "the work tree is " + top
		}
		return "", fmt.Errorf("directory %s is %w (%s): a thread works inside the work tree so that every clone can run it; pass --%s to record this directory anyway",
			dir, ErrOutside, where, OutsideFlag)
	}
	return real, nil
}

// Relative returns the record for dir if it lies inside the work tree at
// top, and ok false otherwise (or when either cannot be resolved).
func Relative(top, dir string) (rel string, ok bool) {
	if top == "" || dir == "" {
		return "", false
	}
	realTop, err := Real(top)
	if err != nil {
		return "", false
	}
	real, err := Real(dir)
	if err != nil || !Within(realTop, real) {
		return "", false
	}
	rel, err = filepath.Rel(realTop, real)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// Step describes where a step should run.
type Step struct {
	// Top is the top of the local work tree; "" in a bare repository.
	Top string
	// Invocation is the directory the user runs the command in. In a bare
	// repository it stands for the work tree.
	Invocation string
	// Recorded is the thread's directory as stored: relative to the top
	// (slash-separated; "" or "." for the top), or absolute (threads of
	// older versions, or started with --outside-worktree).
	Recorded string
	// Override is the directory given for this run (--cwd): absolute or
	// relative to Invocation. It replaces Recorded.
	Override string
	// Location is the edge's location, relative to the thread's directory
	// (Override or Recorded).
	Location string
	// AllowOutside is the user's consent, for this run, to a thread
	// directory outside the work tree.
	AllowOutside bool
}

// Resolve returns the directory to start the agent in: an existing
// directory with its symbolic links resolved, inside the work tree (or,
// with AllowOutside, inside the thread's directory outside it). Anything
// else is an error that says what to do.
func (s Step) Resolve() (string, error) {
	rootDir := s.Top
	rootName := "the work tree " + s.Top
	if rootDir == "" {
		rootDir = s.Invocation
		rootName = "the current directory " + s.Invocation + " (the repository is bare)"
	}
	root, err := Real(rootDir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", rootName, err)
	}
	var base, what string
	switch {
	case s.Override != "":
		base, what = s.Override, "--cwd "+s.Override
		if !filepath.IsAbs(base) {
			base = filepath.Join(s.Invocation, base)
		}
	case isAbs(s.Recorded):
		// Recorded by an older version or with --outside-worktree: usable
		// here when it names a directory in this work tree, or with the
		// user's consent for this run.
		base, what = filepath.Clean(filepath.FromSlash(s.Recorded)), "the thread's directory "+s.Recorded
		if real, err := Real(base); (err != nil || !Within(root, real)) && !s.AllowOutside {
			also := ""
			if err == nil {
				also = fmt.Sprintf(" (or --%s to run there anyway)", OutsideFlag)
			}
			return "", fmt.Errorf("the thread's directory %s is %w here (%s): pass --cwd DIR to choose where its agents run%s",
				s.Recorded, ErrOutside, rootName, also)
		}
	default:
		rec := s.Recorded
		if rec == "" {
			rec = Top
		}
		if strings.Contains(rec, `\`) {
			return "", fmt.Errorf("the thread's directory %q has a backslash: records are slash-separated; pass --cwd DIR", rec)
		}
		base, what = filepath.Join(root, filepath.FromSlash(rec)), "the thread's directory "+rec
	}
	dir := base
	if s.Location != "" {
		what = fmt.Sprintf("location %q below %s", s.Location, what)
		if isAbs(s.Location) {
			dir = filepath.Clean(filepath.FromSlash(s.Location))
		} else {
			dir = filepath.Join(base, filepath.FromSlash(s.Location))
		}
	}
	outside := func(real string) error {
		hint := fmt.Sprintf("pass --cwd DIR inside the work tree, or --%s to run there anyway", OutsideFlag)
		if s.Location != "" {
			hint = "fix the edge's location"
		}
		where := dir
		if real != filepath.Clean(dir) {
			where += " resolves to " + real + " and"
		}
		return fmt.Errorf("step directory %s is %w (%s; %s): %s", where, ErrOutside, what, rootName, hint)
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		// Say "outside" rather than "missing" for what could never run, so
		// that thread data learns nothing about directories out there.
		if abs, aerr := filepath.Abs(dir); aerr == nil && !Within(root, abs) && !s.AllowOutside {
			if rootAbs, rerr := filepath.Abs(rootDir); rerr != nil || !Within(rootAbs, abs) {
				return "", outside(abs)
			}
		}
		return "", fmt.Errorf("step directory %s (%s) does not exist here: pass --cwd DIR or fix the edge's location", dir, what)
	}
	real, err := Real(dir)
	if err != nil {
		return "", fmt.Errorf("step directory %s (%s): %w", dir, what, err)
	}
	if Within(root, real) {
		return real, nil
	}
	if s.AllowOutside {
		// The consent covers the thread's directory and what lies below.
		if realBase, err := Real(base); err == nil && Within(realBase, real) {
			return real, nil
		}
	}
	return "", outside(real)
}

// isAbs reports whether a recorded path is absolute, on any system: a
// leading slash counts.
func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || filepath.IsAbs(p)
}
