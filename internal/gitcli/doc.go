// Package gitcli runs the git binary for everything git-uwf must not do
// in-process: repository discovery (so GIT_DIR, worktrees and bare
// repositories behave exactly as git defines them), compare-and-swap ref
// updates through `git update-ref --stdin`, and network I/O (fetch, push)
// that needs git's credential helpers, ssh configuration and protocol v2.
//
// Every call takes a context, runs with LC_ALL=C so its output can be
// parsed, and fails with a *GitError that carries the exit code and stderr.
package gitcli
