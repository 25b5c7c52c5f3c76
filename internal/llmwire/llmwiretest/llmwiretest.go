// Package llmwiretest builds git-uwf-llm for the tests that send LLM
// requests, so that they go through the real program as git-uwf does.
package llmwiretest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/git-uwf/git-uwf/internal/llmwire"
)

// Build builds cmd/git-uwf-llm into dir and returns the program's path.
func Build(dir string) (string, error) {
	program := filepath.Join(dir, llmwire.Program)
	out, err := exec.Command("go", "build", "-o", program, "github.com/git-uwf/git-uwf/cmd/git-uwf-llm").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build %s: %v\n%s", llmwire.Program, err, out)
	}
	return program, nil
}

// RunTests is a TestMain's work for tests that need the program: it
// builds it into a temporary directory, sets *program to its path, runs
// m and removes the directory, returning m's exit code (1 when the build
// fails, with the reason on stderr).
func RunTests(m *testing.M, program *string) int {
	dir, err := os.MkdirTemp("", "git-uwf-llm-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if *program, err = Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
