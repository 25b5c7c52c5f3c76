// Package agentkit is the agent side of git-uwf: everything a program needs
// to play a role in a git-uwf workflow, so that an agent is a few lines of
// Go.
//
// The engine spawns an agent as
//
//	<command> [args…] <thread-id> <role>
//
// with UWF_EDGE_PROMPT_FILE (a file holding the moderator's instruction),
// UWF_EDGE_PROMPT (the instruction, when it fits a variable), UWF_THREAD,
// UWF_ROLE, UWF_HEAD (the thread commit the step builds on) and GIT_DIR set,
// in the step's working directory, under a supervisor that kills its
// process group when the engine dies (SuperviseIfAsked). The agent builds its prompt from the thread
// (Session), obtains a reply, and Execute turns the reply into a validated
// step: frontmatter fast path, correction retries that quote the
// validator's exact problems, optional LLM extraction, secret redaction,
// then the output, body, prompt, detail and StepNode nodes are written to
// the object database. The agent's last stdout line is an AdapterOutput
// JSON object naming the StepNode; the engine verifies it and moves the
// thread ref. Agents never move refs.
//
// The step's working directory is inside the work tree, and GIT_WORK_TREE
// names its top; the StepNode records the directory relative to that top
// (Session.RecordedCwd). UWF_INVOCATION_DIR is where the user ran
// git-uwf: a relative command or file the user gave resolves there
// (ResolveCommand, InvocationDir), never in the step's directory.
//
// Main wires all of this for a standalone agent binary:
//
//	func main() { agentkit.Main(myAgent{}) }
//
// Lower-level pieces are usable on their own: ParseFrontmatter and
// ExtractOutput, OutputFormatInstruction, AssemblePrompt, Run (process
// spawning with timeouts and process-group kill), RunFunc (the same limits
// for an agent that runs inside the caller's process), ChatComplete and
// LLMExtract (OpenAI-compatible endpoints, reached through the program
// git-uwf-llm: agentkit links no HTTP client) and Redactor.
package agentkit
