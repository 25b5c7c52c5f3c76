package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrNotRepository reports that a directory is not inside a git repository.
var ErrNotRepository = errors.New("not a git repository")

// Repo describes a repository as git itself resolves it from a directory
// and the environment (GIT_DIR, GIT_COMMON_DIR, worktrees, bare repos).
type Repo struct {
	// GitDir is the repository's git directory (for a linked worktree,
	// its private .git/worktrees/<name> directory).
	GitDir string
	// CommonDir holds objects and shared refs; refs/uwf/* live here.
	CommonDir string
	// WorkTree is the top of the work tree; empty for a bare repository.
	WorkTree string
	// Bare is true for bare repositories.
	Bare bool
	// ObjectFormat is "sha1" or "sha256".
	ObjectFormat string
}

// Discover asks git which repository dir belongs to. env is added to the
// environment git sees (GIT_DIR and friends from the caller's environment
// are inherited anyway). In the common case (a work tree with a .git
// directory, nothing in the environment or config that could change the
// answer) it reads the answer from the files instead of starting git.
func Discover(ctx context.Context, dir string, env []string) (*Repo, error) {
	if repo, ok := discoverFiles(dir, env); ok {
		return repo, nil
	}
	r, err := NewRunner(dir, env)
	if err != nil {
		return nil, err
	}
	// One git process in the common case (inside a work tree); bare
	// repositories and .git directories have no top level, make
	// --show-toplevel fail, and take the two-process path below.
	if out, err := r.Output(ctx, "rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--is-bare-repository", "--show-object-format", "--show-toplevel"); err == nil {
		if lines := strings.Split(out, "\n"); len(lines) == 5 && lines[2] == "false" {
			return &Repo{GitDir: filepath.Clean(lines[0]), CommonDir: filepath.Clean(lines[1]),
				ObjectFormat: lines[3], WorkTree: filepath.Clean(lines[4])}, nil
		}
	}
	out, err := r.Output(ctx, "rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--is-bare-repository", "--show-object-format")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return nil, fmt.Errorf("%s: %w (run this inside a git repository, or set GIT_DIR)", dir, ErrNotRepository)
		}
		return nil, fmt.Errorf("discover repository in %s: %w", dir, err)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 4 {
		return nil, fmt.Errorf("discover repository in %s: unexpected rev-parse output %q", dir, out)
	}
	repo := &Repo{
		GitDir:       filepath.Clean(lines[0]),
		CommonDir:    filepath.Clean(lines[1]),
		Bare:         lines[2] == "true",
		ObjectFormat: lines[3],
	}
	// A non-bare repository seen from here has no work tree (we are inside
	// its .git directory, or GIT_DIR names it without a work tree): the
	// first call already showed that --show-toplevel fails, so WorkTree
	// stays empty.
	return repo, nil
}

// Runner returns a Runner that operates on this repository from dir, with
// GIT_DIR pinned so that git and git-uwf always agree on the repository.
func (repo *Repo) Runner(dir string) (*Runner, error) {
	if dir == "" {
		dir = repo.WorkTree
		if dir == "" {
			dir = repo.GitDir
		}
	}
	env := []string{"GIT_DIR=" + repo.GitDir}
	if repo.WorkTree != "" {
		env = append(env, "GIT_WORK_TREE="+repo.WorkTree)
	}
	return NewRunner(dir, env)
}
