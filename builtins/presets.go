package builtins

import (
	"slices"
	"time"
)

// Output modes: how a preset's stdout is read.
const (
	ModeText          = "text"           // stdout is the answer
	ModeClaudeJSON    = "claude-json"    // one JSON object: result, is_error, session_id, permission_denials
	ModeCodexJSONL    = "codex-jsonl"    // JSONL events: thread.started, item.completed agent_message, turn.failed
	ModeGeminiJSON    = "gemini-json"    // one JSON object: response, session_id, error
	ModeQwenJSON      = "qwen-json"      // a JSON array whose last "result" element is like claude's object
	ModeOpencodeJSONL = "opencode-jsonl" // JSONL events: text parts, sessionID, error
	ModeStreamJSON    = "stream-json"    // Claude-compatible JSONL ending in a "result" event (amp)
)

// DefaultPipeTimeout bounds one run of a pipe agent when neither the flag
// nor the preset says otherwise.
const DefaultPipeTimeout = 30 * time.Minute

// ModelPlaceholder in a preset's command line is replaced by the model
// (ollama needs one).
const ModelPlaceholder = "{model}"

// Preset is a known headless agent CLI for the pipe agent.
type Preset struct {
	Name string
	// Argv is the headless command line; the prompt goes to its stdin.
	Argv []string
	// Mode says how stdout is read (Mode* constants).
	Mode string
	// ModelFlag selects a model when --model is given ("" when the model
	// is a ModelPlaceholder in Argv or cannot be chosen).
	ModelFlag string
	// Resume returns the command line that continues session id with a
	// new message on stdin; nil when the CLI cannot resume headless.
	Resume func(argv []string, id string) []string
	// Timeout is the default per-run timeout; when it passes, the CLI's
	// whole process group is killed.
	Timeout time.Duration
	// Endpoint finds the model server the CLI will talk to, for `agent
	// doctor`; nil when it cannot be known.
	Endpoint func(getenv func(string) string) Endpoint
	// Success tells how success is told from failure (documentation).
	Success string
}

// appendResume returns a Resume function that appends flag and the id.
func appendResume(flag string) func([]string, string) []string {
	return func(argv []string, id string) []string {
		return append(slices.Clone(argv), flag, id)
	}
}

// codexResume turns "codex exec [flags] [-] [flags]" into "codex exec
// [flags] resume <id> -": the exec flags stay before the subcommand
// (verified with codex 0.169.0).
func codexResume(argv []string, id string) []string {
	out := make([]string, 0, len(argv)+3)
	for _, a := range argv {
		if a != "-" {
			out = append(out, a)
		}
	}
	return append(out, "resume", id, "-")
}

// Presets returns the built-in presets, sorted by name. The command lines
// are the headless invocations that read the prompt from stdin; they were
// checked against claude-code 2.1.330, codex 0.169.0, gemini-cli 0.61.0,
// qwen-code 0.24.4 and opencode 1.18.33 (see docs/agents.md).
func Presets() []Preset {
	return []Preset{
		{Name: "aider", Argv: []string{"aider", "--message-file", "/dev/stdin", "--yes-always", "--no-pretty", "--no-stream", "--no-auto-commits", "--no-dirty-commits"},
			Mode: ModeText, ModelFlag: "--model", Timeout: 30 * time.Minute, Endpoint: envEndpoint("", "OPENAI_API_BASE"),
			Success: "exit status and a non-empty stdout (aider exits 0 on some API errors; the frontmatter check catches those)"},
		{Name: "amp", Argv: []string{"amp", "-x", "--stream-json"}, Mode: ModeStreamJSON, Timeout: 30 * time.Minute,
			Endpoint: envEndpoint("https://ampcode.com", "AMP_URL"),
			Success:  "exit status, then the final result event's is_error"},
		{Name: "claude", Argv: []string{"claude", "-p", "--output-format", "json"}, Mode: ModeClaudeJSON, ModelFlag: "--model",
			Resume: appendResume("--resume"), Timeout: 30 * time.Minute, Endpoint: envEndpoint("https://api.anthropic.com", "ANTHROPIC_BASE_URL"),
			Success: "exit status (errors are printed on stdout), then is_error; permission_denials are recorded and fail the run only when the result is empty"},
		{Name: "codex", Argv: []string{"codex", "exec", "--json", "--skip-git-repo-check", "-"}, Mode: ModeCodexJSONL, ModelFlag: "-m",
			Resume: codexResume, Timeout: 30 * time.Minute, Endpoint: codexEndpoint,
			Success: "exit status, then turn.failed and error events"},
		{Name: "cursor-agent", Argv: []string{"cursor-agent", "-p", "--output-format", "text", "--trust"}, Mode: ModeText, ModelFlag: "--model",
			Timeout: 30 * time.Minute, Success: "exit status and a non-empty stdout"},
		{Name: "gemini", Argv: []string{"gemini", "-p", "", "-o", "json", "--skip-trust"}, Mode: ModeGeminiJSON, ModelFlag: "-m",
			Resume: appendResume("--resume"), Timeout: 30 * time.Minute,
			Endpoint: envEndpoint("https://generativelanguage.googleapis.com", "GOOGLE_GEMINI_BASE_URL"),
			Success:  "exit status (an API error gives exit 145, an empty stdout and a JSON error on stderr), then the error field"},
		{Name: "llm-cli", Argv: []string{"llm", "--no-stream"}, Mode: ModeText, ModelFlag: "-m", Timeout: 10 * time.Minute,
			Success: "exit status and a non-empty stdout"},
		{Name: "ollama", Argv: []string{"ollama", "run", ModelPlaceholder, "--nowordwrap", "--hidethinking"}, Mode: ModeText,
			Timeout: 15 * time.Minute, Endpoint: ollamaEndpoint,
			Success: "exit status and a non-empty stdout"},
		{Name: "opencode", Argv: []string{"opencode", "run", "--format", "json"}, Mode: ModeOpencodeJSONL, ModelFlag: "-m",
			Resume: appendResume("--session"), Timeout: 30 * time.Minute, Endpoint: opencodeEndpoint,
			Success: "exit status, then error events; the text parts are the answer"},
		{Name: "qwen", Argv: []string{"qwen", "-o", "json"}, Mode: ModeQwenJSON, ModelFlag: "-m",
			Resume: appendResume("--resume"), Timeout: 30 * time.Minute, Endpoint: envEndpoint("", "OPENAI_BASE_URL"),
			Success: "exit status (a JSON error on stderr), then the result element's is_error; permission_denials as for claude"},
	}
}

// PresetNames returns the names of the built-in presets.
func PresetNames() []string {
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
	}
	return names
}

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Preset, bool) {
	for _, p := range Presets() {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}
