package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// discoverWithGit is Discover without the files fast path.
func discoverWithGit(t *testing.T, dir string, env []string) *Repo {
	t.Helper()
	t.Setenv("GIT_UWF_TEST_FORCE_GIT", "1") // any GIT_* variable sends Discover to git
	repo, err := Discover(context.Background(), dir, env)
	if err != nil {
		t.Fatalf("Discover(%s) through git: %v", dir, err)
	}
	return repo
}

// discoverFiles answers what git answers whenever it answers, and leaves
// every case it cannot be sure of to git.
func TestDiscoverFilesAgreesWithGit(t *testing.T) {
	main := initRepo(t)
	sub := filepath.Join(main, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	nested := filepath.Join(main, "inner")
	git(t, main, "init", "-q", nested)
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, main, "worktree", "add", "-q", wt)
	bare := filepath.Join(t.TempDir(), "bare.git")
	git(t, main, "clone", "-q", "--bare", main, bare)
	moved := initRepo(t)
	git(t, moved, "config", "core.worktree", moved)
	withExt := initRepo(t)
	git(t, withExt, "config", "extensions.worktreeConfig", "true")
	included := initRepo(t)
	git(t, included, "config", "include.path", "/dev/null")
	markedBare := initRepo(t)
	git(t, markedBare, "config", "core.bare", "true")
	notRepo := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(main, link); err != nil {
		t.Fatal(err)
	}
	mainGit := filepath.Join(main, ".git")
	given := func(gitDir, workTree string) []string {
		return []string{"GIT_DIR=" + gitDir, "GIT_WORK_TREE=" + workTree}
	}

	tests := []struct {
		name string
		dir  string
		env  []string
		fast bool // discoverFiles must answer
	}{
		{name: "top of a work tree", dir: main, fast: true},
		{name: "subdirectory", dir: sub, fast: true},
		// git sets GIT_EXEC_PATH for the external commands it runs.
		{name: "run by git as `git uwf`", dir: sub, env: []string{"GIT_EXEC_PATH=" + git(t, main, "--exec-path")}, fast: true},
		// and GIT_PAGER_IN_USE when it pages their output.
		{name: "paged by git", dir: sub, env: []string{"GIT_PAGER_IN_USE=true"}, fast: true},
		{name: "nested repository", dir: nested, fast: true},
		{name: "inside .git", dir: filepath.Join(main, ".git", "refs")},
		{name: "linked worktree (.git file)", dir: wt},
		{name: "bare repository", dir: bare},
		{name: "GIT_DIR in env", dir: notRepo, env: []string{"GIT_DIR=" + mainGit}},
		{name: "GIT_WORK_TREE alone", dir: sub, env: []string{"GIT_WORK_TREE=" + main}},
		{name: "GIT_DIR and GIT_WORK_TREE", dir: sub, env: given(mainGit, main), fast: true},
		{name: "GIT_DIR and GIT_WORK_TREE, outside the work tree", dir: notRepo, env: given(mainGit, main), fast: true},
		{name: "GIT_DIR and GIT_WORK_TREE through a symbolic link", dir: sub, env: given(filepath.Join(link, ".git"), link), fast: true},
		{name: "GIT_DIR and GIT_WORK_TREE, relative", dir: main, env: given(".git", ".")},
		{name: "GIT_DIR and GIT_WORK_TREE, and GIT_COMMON_DIR", dir: sub, env: append(given(mainGit, main), "GIT_COMMON_DIR="+mainGit)},
		{name: "GIT_DIR of a linked worktree", dir: wt, env: given(filepath.Join(mainGit, "worktrees", "wt"), wt)},
		{name: "GIT_DIR a .git file", dir: wt, env: given(filepath.Join(wt, ".git"), wt)},
		{name: "GIT_DIR of a bare repository", dir: notRepo, env: given(bare, notRepo)},
		{name: "GIT_DIR with extensions", dir: withExt, env: given(filepath.Join(withExt, ".git"), withExt)},
		{name: "core.worktree", dir: moved},
		{name: "extensions", dir: withExt},
		{name: "include", dir: included},
		{name: "core.bare = true", dir: markedBare},
		{name: "not a repository", dir: notRepo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := discoverFiles(tt.dir, tt.env)
			if ok != tt.fast {
				t.Fatalf("discoverFiles answered %v, want %v (%+v)", ok, tt.fast, got)
			}
			if !ok || tt.name == "not a repository" {
				return
			}
			if want := discoverWithGit(t, tt.dir, tt.env); *got != *want {
				t.Fatalf("discoverFiles = %+v, git says %+v", got, want)
			}
		})
	}
}

func TestDiscoveryEnvSet(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want bool
	}{
		{nil, false},
		{[]string{"HOME=/h", "GIT_AUTHOR_NAME=a", "GIT_COMMITTER_EMAIL=c", "GIT_TRACE2_PERF=1", "GIT_TERMINAL_PROMPT=0", "GIT_SSL_CAINFO=/c", "GIT_TRACE=1"}, false},
		{[]string{"GIT_SSLX=1"}, true},
		{[]string{"GIT_EXEC_PATH=/usr/lib/git-core"}, false}, // git sets it for `git uwf`
		{[]string{"GIT_EXEC_PATHS=/x"}, true},
		{[]string{"GIT_PAGER_IN_USE=true"}, false}, // git sets it when it pages `git uwf`
		{[]string{"GIT_DIR=/x"}, true},
		{[]string{"GIT_WORK_TREE=/x"}, true},
		{[]string{"GIT_CEILING_DIRECTORIES=/x"}, true},
		{[]string{"GIT_CONFIG_GLOBAL=/x"}, true},
		{[]string{"GIT_COMMON_DIR=/x"}, true},
	} {
		if got := discoveryEnvSet(tc.env); got != tc.want {
			t.Errorf("discoveryEnvSet(%q) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

func TestRepoEnv(t *testing.T) {
	for _, tc := range []struct {
		envs             [][]string
		gitDir, workTree string
		ok               bool
	}{
		{nil, "", "", true},
		{[][]string{{"HOME=/h", "GIT_AUTHOR_NAME=a"}}, "", "", true},
		{[][]string{{"GIT_DIR=/r/.git", "GIT_WORK_TREE=/r"}}, "/r/.git", "/r", true},
		{[][]string{{"GIT_DIR=/r/.git"}, {"GIT_WORK_TREE=/r"}}, "/r/.git", "/r", true},
		{[][]string{{"GIT_DIR=/a/.git", "GIT_WORK_TREE=/a"}, {"GIT_DIR=/r/.git", "GIT_WORK_TREE=/r"}}, "/r/.git", "/r", true},
		{[][]string{{"GIT_DIR=/r/.git"}}, "", "", false},
		{[][]string{{"GIT_WORK_TREE=/r"}}, "", "", false},
		{[][]string{{"GIT_DIR=.git", "GIT_WORK_TREE=/r"}}, "", "", false},
		{[][]string{{"GIT_DIR=/r/.git", "GIT_WORK_TREE="}}, "", "", false},
		{[][]string{{"GIT_DIR=/r/.git", "GIT_WORK_TREE=/r", "GIT_COMMON_DIR=/c"}}, "", "", false},
		{[][]string{{"GIT_DIR=/r/.git", "GIT_WORK_TREE=/r"}, {"GIT_CONFIG_GLOBAL=/x"}}, "", "", false},
	} {
		gitDir, workTree, ok := repoEnv(tc.envs...)
		if gitDir != tc.gitDir || workTree != tc.workTree || ok != tc.ok {
			t.Errorf("repoEnv(%q) = %q, %q, %v; want %q, %q, %v", tc.envs, gitDir, workTree, ok, tc.gitDir, tc.workTree, tc.ok)
		}
	}
}
