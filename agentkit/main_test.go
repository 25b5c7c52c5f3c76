package agentkit

import (
	"fmt"
	"os"
	"testing"

	"github.com/git-uwf/git-uwf/internal/llmwire/llmwiretest"
)

// LLMProgram is git-uwf-llm, built once for the tests that send chat
// completion requests (LLMEndpoint.Program).
var LLMProgram string

// The test binary doubles as the supervisor (Invocation.Supervisor).
func TestMain(m *testing.M) {
	SuperviseIfAsked()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "agentkit-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if LLMProgram, err = llmwiretest.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
