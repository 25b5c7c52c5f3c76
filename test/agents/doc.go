// Package agents holds git-uwf's end-to-end tests with the real coding
// agent CLIs (claude, codex, gemini, qwen, opencode): each CLI, installed
// from npm at a pinned version by scripts/install-agent-clis.sh, drives
// whole workflows through `git uwf thread step` against a local fake model
// server (internal/fakemodel), and fails cleanly when that server answers
// 401 or 500 or never answers.
//
// The tests are behind the `agents` build tag, so `go test ./...` does not
// run them; `make test-agents` does (see docs/agents.md).
package agents
