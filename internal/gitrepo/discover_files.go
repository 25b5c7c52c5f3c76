package gitrepo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// discoverFiles finds the repository that contains dir the way git does in
// the common case, a work tree with a .git directory at its top, without
// starting git; and the repository an agent is given, GIT_DIR and
// GIT_WORK_TREE both set to absolute paths (see explicitRepo). ok is false
// whenever git might answer differently, and the caller then asks git:
//   - an environment variable that changes discovery or the repository
//     (GIT_CEILING_DIRECTORIES, GIT_COMMON_DIR, GIT_CONFIG…: any GIT_* but
//     the few that only name identities or tune output, and GIT_DIR with
//     GIT_WORK_TREE);
//   - a .git file (linked worktrees, submodules), a .git that is not a
//     git directory, or a directory on the way that is itself a git
//     directory (bare repositories, or dir inside a .git directory);
//   - a filesystem boundary crossed before the repository is found;
//   - a repository or work tree owned by another user (safe.directory);
//   - a config that could move the work tree or change the format
//     (core.worktree, core.bare = true, [extensions], [include…]), or a
//     commondir file;
//   - dir in no repository at all (git words that error).
func discoverFiles(dir string, env []string) (*Repo, bool) {
	gitDir, workTree, ok := repoEnv(os.Environ(), env)
	if !ok {
		return nil, false
	}
	if gitDir != "" {
		return explicitRepo(dir, gitDir, workTree)
	}
	start, err := filepath.Abs(dir)
	if err != nil {
		return nil, false
	}
	if start, err = filepath.EvalSymlinks(start); err != nil {
		return nil, false
	}
	startInfo, err := os.Stat(start)
	if err != nil || !startInfo.IsDir() {
		return nil, false
	}
	dev, devOK := deviceOf(startInfo)
	for d := start; ; {
		dotGit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotGit); err == nil {
			if !fi.IsDir() || !isGitDir(dotGit) {
				return nil, false
			}
			return fastRepo(d, dotGit)
		} else if !os.IsNotExist(err) {
			return nil, false
		}
		if isGitDir(d) {
			return nil, false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, false
		}
		fi, err := os.Stat(parent)
		if err != nil {
			return nil, false
		}
		if pdev, ok := deviceOf(fi); !devOK || !ok || pdev != dev {
			return nil, false
		}
		d = parent
	}
}

// repoEnv reads the environments (a later one wins) for the variables that
// choose the repository. ok is false when git might discover differently
// from discoverFiles: a GIT_* variable other than the harmless ones, GIT_DIR
// and GIT_WORK_TREE is set, or only one of those two, or either is not an
// absolute path. Otherwise gitDir and workTree are both "" (discover from
// the directory) or both absolute paths.
func repoEnv(envs ...[]string) (gitDir, workTree string, ok bool) {
	var dirSet, treeSet bool
	for _, env := range envs {
		for _, kv := range env {
			name, value, _ := strings.Cut(kv, "=")
			switch {
			case name == "GIT_DIR":
				gitDir, dirSet = value, true
			case name == "GIT_WORK_TREE":
				workTree, treeSet = value, true
			case discoveryEnvSet([]string{kv}):
				return "", "", false
			}
		}
	}
	if !dirSet && !treeSet {
		return "", "", true
	}
	if !dirSet || !treeSet || !filepath.IsAbs(gitDir) || !filepath.IsAbs(workTree) {
		return "", "", false
	}
	return gitDir, workTree, true
}

// explicitRepo describes the repository git finds in dir with GIT_DIR and
// GIT_WORK_TREE set to gitDir and workTree, absolute paths: the git
// directory and the top of the work tree are those two (symbolic links
// resolved, as git prints them), wherever dir is. This is how the engine
// hands an agent its repository, so a spawned agent opens it without
// starting git. ok is false when gitDir is not a git directory (a .git
// file included) or fastRepo refuses it (another owner, a commondir file,
// a config that changes the format or pulls in other files).
func explicitRepo(dir, gitDir, workTree string) (*Repo, bool) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, false
	}
	gitDir, err := filepath.EvalSymlinks(gitDir)
	if err != nil {
		return nil, false
	}
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() || !isGitDir(gitDir) {
		return nil, false
	}
	top, err := filepath.EvalSymlinks(workTree)
	if err != nil {
		return nil, false
	}
	if fi, err := os.Stat(top); err != nil || !fi.IsDir() {
		return nil, false
	}
	return fastRepo(top, gitDir)
}

// fastRepo checks the repository found at top and describes it.
func fastRepo(top, gitDir string) (*Repo, bool) {
	for _, p := range []string{top, gitDir} {
		fi, err := os.Stat(p)
		if err != nil || !ownedByUs(fi) {
			return nil, false
		}
	}
	if _, err := os.Lstat(filepath.Join(gitDir, "commondir")); !os.IsNotExist(err) {
		return nil, false
	}
	cfg, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil || !plainConfig(cfg) {
		return nil, false
	}
	return &Repo{GitDir: gitDir, CommonDir: gitDir, WorkTree: top, ObjectFormat: "sha1"}, true
}

// plainConfig reports whether a repository config sets nothing that moves
// the work tree, makes the repository bare, changes its format or pulls in
// other files.
func plainConfig(cfg []byte) bool {
	for _, line := range bytes.Split(bytes.ToLower(cfg), []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			if bytes.HasPrefix(line, []byte("[extensions")) || bytes.HasPrefix(line, []byte("[include")) {
				return false
			}
			continue
		}
		key, value, _ := bytes.Cut(line, []byte("="))
		key, value = bytes.TrimSpace(key), bytes.TrimSpace(value)
		switch string(key) {
		case "worktree":
			return false
		case "bare":
			if string(value) != "false" {
				return false
			}
		}
	}
	return true
}

// isGitDir is git's test for a git directory: HEAD, objects/ and refs/.
func isGitDir(d string) bool {
	if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || fi.IsDir() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// discoveryEnvSet reports whether env sets a GIT_* variable other than
// those that only name identities, configure transports or tune git's
// output; any other one (GIT_DIR, GIT_CONFIG_*, GIT_CEILING_DIRECTORIES…)
// might change which repository git finds.
func discoveryEnvSet(env []string) bool {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "GIT_") {
			continue
		}
		harmless := false
		for _, p := range harmlessGitEnv {
			if strings.HasSuffix(p, "_") && strings.HasPrefix(name, p) || name == p {
				harmless = true
				break
			}
		}
		if !harmless {
			return true
		}
	}
	return false
}

// harmlessGitEnv are the GIT_* variables (a trailing _ names a prefix)
// that cannot change which repository git finds. GIT_EXEC_PATH is set by
// git itself for every external command it runs, `git uwf` included: it
// says where git's own programs are, not where the repository is. So is
// GIT_PAGER_IN_USE when git pages the command's output (`git -p uwf …`,
// or pager.uwf set): it only says that a pager is reading it.
var harmlessGitEnv = []string{
	"GIT_EXEC_PATH", "GIT_PAGER_IN_USE",
	"GIT_AUTHOR_", "GIT_COMMITTER_", "GIT_TRACE", "GIT_TRACE_", "GIT_TRACE2", "GIT_TRACE2_",
	"GIT_SSL_", "GIT_HTTP_", "GIT_CURL_", "GIT_PROXY_", "GIT_SSH", "GIT_SSH_", "GIT_LFS_",
	"GIT_ASKPASS", "GIT_TERMINAL_PROMPT", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
	"GIT_MERGE_AUTOEDIT", "GIT_FLUSH", "GIT_PROGRESS_DELAY", "GIT_REDACT_COOKIES",
}
