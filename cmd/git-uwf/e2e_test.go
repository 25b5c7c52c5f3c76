package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// gitUwfBin is the git-uwf binary built once for the end-to-end scripts.
var gitUwfBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "git-uwf-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	gitUwfBin = filepath.Join(dir, "git-uwf")
	build := exec.Command("go", "build", "-o", gitUwfBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build git-uwf:", err)
		return 1
	}
	return m.Run()
}

// TestScripts runs testdata/script/*.txtar: whole CLI sessions against real
// repositories, with the real git-uwf binary (so `git uwf …` works too) and
// the built-in mock and pipe agents, offline.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			bin := filepath.Dir(gitUwfBin)
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			gitconfig := filepath.Join(home, ".gitconfig")
			if err := os.WriteFile(gitconfig, []byte("[user]\n\tname = uwf test\n\temail = test@uwf.invalid\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
				return err
			}
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("GIT_CONFIG_GLOBAL", gitconfig)
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
			env.Setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
			env.Setenv("NO_COLOR", "1")
			return nil
		},
	})
}
