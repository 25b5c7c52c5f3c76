// Package gitrepo runs the git binary for everything git-uwf must not do
// in-process: repository discovery beyond the plain case (so GIT_DIR,
// worktrees and bare repositories behave exactly as git defines them),
// compare-and-swap ref updates through `git update-ref --stdin`, batch
// object reads (`cat-file`), and network I/O (fetch, push) that needs git's
// credential helpers, ssh configuration and protocol v2.
//
// It also reads, without git, what the files answer for certain: the
// repository of a plain work tree (discover_files.go) and refs of the files
// backend (ReadRefs, RefFiles), deferring to git for anything else.
//
// Every git call takes a context, runs with LC_ALL=C so its output can be
// parsed, and fails with a *GitError that carries the exit code and stderr.
package gitrepo
