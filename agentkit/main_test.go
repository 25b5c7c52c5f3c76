package agentkit

import (
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
	os.Exit(llmwiretest.RunTests(m, &LLMProgram))
}
