// Command git-uwf-llm sends git-uwf's HTTP requests to model servers: the
// chat completions of the built-in llm agent and of LLM extraction, and
// the reachability probe of `git uwf agent doctor`. It is a program of its
// own so that git-uwf links no HTTP client, TLS or X.509 code, whose
// package initialisation every other command would pay for (see
// docs/architecture.md, "Why a second binary"); install it next to git-uwf.
//
// Only git-uwf runs it: one request as JSON on stdin (package
// internal/llmwire), the reply as JSON on stdout, or a message on stderr
// and exit status 1. The API key comes in the environment.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/git-uwf/git-uwf/internal/llmhttp"
	"github.com/git-uwf/git-uwf/internal/llmwire"
)

func main() {
	if len(os.Args) > 1 {
		os.Stderr.WriteString(llmwire.Program + ": git-uwf runs this program to send its requests to model servers; it takes no arguments\n")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := llmhttp.Serve(ctx, os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
