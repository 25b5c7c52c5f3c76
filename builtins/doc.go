// Package builtins holds git-uwf's built-in agents, each an agentkit.Agent
// run by `git uwf agent <name>`, or called by the engine inside its own
// process (ParseCommand reads the command line the engine was given; the
// New…Agent functions build the agent for both):
//
//   - Mock replays a MockScript (tests, demos, CI); the step it plays is
//     the number of steps already in the thread.
//   - Pipe pipes the assembled prompt to a headless agent CLI's stdin and
//     reads the answer from its stdout. Presets hold the exact command lines
//     and output parsers for claude, codex, gemini, qwen, opencode,
//     cursor-agent, aider, ollama, llm (llm-cli) and amp.
//   - Human lets a person answer in $EDITOR, or on stdin.
//   - LLM asks an OpenAI-compatible chat completion endpoint.
package builtins
