// Package synctest builds the repositories sync tests need: a bare remote on
// disk and two clones, A and B, that reach it as "origin" through real git
// push and fetch.
package synctest

import (
	"path/filepath"
	"testing"

	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// Repos are the directories of a bare remote and two clones of it.
type Repos struct {
	Remote string // bare repository
	A, B   string // work trees; both have the remote as "origin"
}

// ReposAndRemote creates a bare remote with one commit on main, pushed from
// A, and B cloned from it. Everything lives under t.TempDir.
func ReposAndRemote(t testing.TB) Repos {
	t.Helper()
	remote := filepath.Join(t.TempDir(), "remote.git")
	chaintest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	a := chaintest.InitRepo(t)
	chaintest.Git(t, a, "remote", "add", "origin", remote)
	chaintest.Git(t, a, "push", "-q", "-u", "origin", "main")
	b := filepath.Join(t.TempDir(), "b")
	chaintest.Git(t, filepath.Dir(b), "clone", "-q", remote, b)
	chaintest.Git(t, b, "config", "user.name", "uwf test B")
	chaintest.Git(t, b, "config", "user.email", "b@uwf.invalid")
	return Repos{Remote: remote, A: a, B: b}
}
