// Package llmwiretest builds git-uwf-llm for the tests that send LLM
// requests, so that they go through the real program as git-uwf does.
package llmwiretest

import (
	"fmt"
	"os/exec"
	"path/filepath"

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
