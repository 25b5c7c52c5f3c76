package builtins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kballard/go-shellquote"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/internal/text"
)

// maxEchoedAnswer bounds the previous answer quoted in a correction that
// cannot resume a session.
const maxEchoedAnswer = 32 << 10

// Pipe runs a prompt-in, text-out command: the prompt goes to its stdin
// (which is then closed; the prompt is never an argument), stdout is the
// answer and stderr is kept in the step's detail.
type Pipe struct {
	// Argv is the command line.
	Argv []string
	// Preset, when set, says how to read stdout and how to resume a session.
	// Without one, stdout is plain text.
	Preset *Preset
	// Timeout bounds one run (0: the preset's, else DefaultPipeTimeout); the
	// whole process group is killed when it passes.
	Timeout time.Duration
	// Env is the command's environment (nil: inherit).
	Env []string
	// MaxOutput caps stdout and stderr (0: agentkit's default).
	MaxOutput int64
	// NoResume starts a new session for every step. Otherwise a preset
	// that can resume continues the session recorded by the thread's last
	// step of the same role (same preset, same directory).
	NoResume bool
	// Dir is where a relative command resolves: the directory the user ran
	// git-uwf in (agentkit.InvocationDir). "" means the step's directory,
	// for a pipe run by hand there.
	Dir string
	// Supervisor is the program that supervises the command (see
	// agentkit.Invocation.Supervisor), so that the command's whole process
	// group dies with this agent; "" spawns it directly.
	Supervisor string
}

// invocationDir returns the directory a relative command resolves against.
func (p *Pipe) invocationDir(s *agentkit.Session) string {
	if p.Dir != "" {
		return p.Dir
	}
	return s.Cwd
}

// beforeStdinDash appends args to argv, before a final "-" (codex reads
// the prompt from stdin when its last argument is "-").
func beforeStdinDash(argv []string, args ...string) []string {
	if n := len(argv); n > 0 && argv[n-1] == "-" {
		return append(append(slices.Clone(argv[:n-1]), args...), "-")
	}
	return append(argv, args...)
}

// NewPipe builds a pipe agent from a preset name (may be ""), a command
// line (may be empty when a preset is given; it replaces the preset's)
// and a model (for presets that take one).
func NewPipe(preset string, argv []string, model string) (*Pipe, error) {
	p := &Pipe{Argv: slices.Clone(argv)}
	if preset != "" {
		pr, ok := LookupPreset(preset)
		if !ok {
			return nil, fmt.Errorf("unknown pipe preset %q (known: %s)", preset, strings.Join(PresetNames(), ", "))
		}
		p.Preset = &pr
		if len(p.Argv) == 0 {
			p.Argv = slices.Clone(pr.Argv)
		}
	}
	if len(p.Argv) == 0 {
		return nil, errors.New("pipe needs a command (after --) or --preset NAME")
	}
	hasPlaceholder := slices.Contains(p.Argv, ModelPlaceholder)
	switch {
	case hasPlaceholder && model == "":
		return nil, fmt.Errorf("the %s command line needs a model: pass --model NAME or set %s", p.label(), EnvPipeModel)
	case hasPlaceholder:
		for i, a := range p.Argv {
			if a == ModelPlaceholder {
				p.Argv[i] = model
			}
		}
	case model != "" && p.Preset != nil && p.Preset.ModelFlag != "":
		p.Argv = beforeStdinDash(p.Argv, p.Preset.ModelFlag, model)
	case model != "":
		return nil, fmt.Errorf("--model: the %s command line has no model option; put it in the command after --", p.label())
	}
	return p, nil
}

// EnvPipeModel is read by `git uwf agent pipe` when --model is not given.
const EnvPipeModel = "UWF_PIPE_MODEL"

func (p *Pipe) label() string {
	if p.Preset != nil {
		return p.Preset.Name
	}
	if len(p.Argv) > 0 {
		return filepath.Base(p.Argv[0])
	}
	return "pipe"
}

// Name is "pipe:<preset>" or "pipe:<command>".
func (p *Pipe) Name() string { return "pipe:" + p.label() }

func (p *Pipe) mode() string {
	if p.Preset != nil {
		return p.Preset.Mode
	}
	return ModeText
}

func (p *Pipe) timeout() time.Duration {
	switch {
	case p.Timeout > 0:
		return p.Timeout
	case p.Preset != nil && p.Preset.Timeout > 0:
		return p.Preset.Timeout
	}
	return DefaultPipeTimeout
}

// Run pipes the session's prompt to the command. When the thread's last
// step of the same role ran this preset in the same directory and
// recorded a session id, that session is resumed with the prompt (the
// CLI keeps its own context: files read, tool results); when resuming
// fails, the step starts a new session and the detail says why.
func (p *Pipe) Run(ctx context.Context, s *agentkit.Session) (agentkit.Reply, error) {
	if p.Preset == nil || p.Preset.Resume == nil || p.NoResume {
		return p.run(ctx, s, p.Argv, s.Prompt)
	}
	id, err := p.previousSession(ctx, s)
	if err != nil || id == "" {
		reply, runErr := p.run(ctx, s, p.Argv, s.Prompt)
		if err != nil && reply.Detail != nil {
			reply.Detail["resumeError"] = err.Error()
		}
		return reply, runErr
	}
	reply, runErr := p.run(ctx, s, p.Preset.Resume(p.Argv, id), s.Prompt)
	if runErr == nil {
		reply.Detail["resumedSession"] = id
		return reply, nil
	}
	if ctx.Err() != nil {
		return reply, runErr
	}
	fmt.Fprintf(logOf(s), "%s: resuming session %s failed (%v); starting a new session\n", p.label(), id, runErr)
	fresh, err := p.run(ctx, s, p.Argv, s.Prompt)
	if fresh.Detail != nil {
		fresh.Detail["resumeError"] = fmt.Sprintf("session %s: %v", id, runErr)
	}
	return fresh, err
}

// previousSession returns the session id the thread's last step of the
// session's role recorded, when that step ran this agent in the same
// directory; "" otherwise.
func (p *Pipe) previousSession(ctx context.Context, s *agentkit.Session) (string, error) {
	if s.Repo == nil || s.Thread == nil || s.Thread.Head == nil || s.Role == nil {
		return "", nil
	}
	entries, err := s.Repo.Chain(ctx, s.Thread.Head.Commit)
	if err != nil {
		return "", fmt.Errorf("read the thread to find the previous %s session: %w", p.label(), err)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		st := entries[i].Step
		if st == nil || st.Role != s.Role.Name {
			continue
		}
		// Steps record their directory relative to the top; older ones
		// recorded the absolute path.
		sameDir := st.Cwd == s.RecordedCwd() || st.Cwd == s.Cwd
		if st.Agent != p.Name() || !sameDir || st.Detail == "" {
			return "", nil
		}
		n, err := s.Repo.NodeInCommit(entries[i], st.Detail)
		if err != nil {
			return "", fmt.Errorf("read the detail of step %s: %w", entries[i].Node.Alias, err)
		}
		var detail struct {
			SessionID string `json:"sessionId"`
			Preset    string `json:"preset"`
		}
		if err := json.Unmarshal(n.Payload, &detail); err != nil {
			return "", fmt.Errorf("read the detail of step %s: %w", entries[i].Node.Alias, err)
		}
		if detail.Preset != p.Preset.Name {
			return "", nil
		}
		if !usableSessionID(detail.SessionID) {
			// Fetched data never chooses an argument of the command line.
			return "", fmt.Errorf("the session id recorded by step %s is not a plain id", entries[i].Node.Alias)
		}
		return detail.SessionID, nil
	}
	return "", nil
}

func logOf(s *agentkit.Session) io.Writer {
	if s.Log != nil {
		return s.Log
	}
	return io.Discard
}

// Correct resumes the command's session with the correction when the
// preset can (claude --resume, codex exec resume, …); otherwise it runs
// the command again with the original prompt, the rejected answer and the
// correction.
func (p *Pipe) Correct(ctx context.Context, s *agentkit.Session, prev agentkit.Reply, correction string) (agentkit.Reply, error) {
	if p.Preset != nil && p.Preset.Resume != nil && usableSessionID(prev.SessionID) {
		return p.run(ctx, s, p.Preset.Resume(p.Argv, prev.SessionID), correction)
	}
	answer := prev.Text
	if len(answer) > maxEchoedAnswer {
		answer = answer[:maxEchoedAnswer]
		for len(answer) > 0 && !utf8.ValidString(answer) {
			answer = answer[:len(answer)-1]
		}
		answer += "\n…"
	}
	prompt := s.Prompt + "\n\n## Your Previous Answer\n\n" + answer + "\n\n" + correction
	return p.run(ctx, s, p.Argv, prompt)
}

func (p *Pipe) run(ctx context.Context, s *agentkit.Session, argv []string, stdin string) (agentkit.Reply, error) {
	name := p.label()
	// A relative command was written on the user's command line or in the
	// user's configuration: it resolves where the user ran git-uwf, never
	// in the step's directory (thread data chooses that).
	cmd := agentkit.ResolveCommand(argv[0], p.invocationDir(s))
	res, runErr := agentkit.Run(ctx, agentkit.Invocation{Command: cmd, Args: argv[1:], Env: p.Env, Dir: s.Cwd,
		Stdin: strings.NewReader(stdin), Timeout: p.timeout(), MaxOutput: p.MaxOutput, Stderr: s.Log,
		// Shorter than the engine's grace for this agent: the CLI is always
		// stopped before the engine resorts to SIGKILL.
		KillGrace: time.Second, Supervisor: p.Supervisor})
	if res == nil {
		return agentkit.Reply{}, runErr
	}
	out, perr := parseOutput(p.mode(), res.Stdout)
	detail := map[string]any{
		"command":    shellquote.Join(argv...),
		"exitCode":   res.ExitCode,
		"durationMs": res.Duration.Milliseconds(),
	}
	if p.Preset != nil {
		detail["preset"] = p.Preset.Name
	}
	if t := tail(string(res.Stderr), 4096); strings.TrimSpace(t) != "" {
		detail["stderr"] = t
	}
	if len(out.denials) > 0 {
		detail["permissionDenials"] = out.denials
	}
	if len(out.errors) > 0 {
		detail["errors"] = slices.Clone(out.errors)
	}
	reply := agentkit.Reply{Text: strings.TrimRight(out.text, " \t\r\n"), SessionID: out.session, Detail: detail}
	if runErr != nil {
		// claude prints its errors on stdout and nothing on stderr; gemini
		// and qwen end stderr with a JSON error object.
		msg := text.OneLine(out.message)
		if msg == "" {
			msg = stderrJSONError(res.Stderr)
		}
		if msg == "" && strings.TrimSpace(string(res.Stderr)) == "" {
			msg = snippet(string(res.Stdout))
		}
		var ae *agentkit.AgentError
		if msg == "" && errors.As(runErr, &ae) && ae.TimedOut {
			// The timeout message carries no stderr: say what the CLI
			// was doing (retrying, reconnecting…).
			if l := lastLine(string(res.Stderr)); l != "" {
				msg = "(last stderr line) " + l
			}
		}
		if msg != "" {
			return reply, fmt.Errorf("%w; %s said: %s", runErr, name, msg)
		}
		return reply, runErr
	}
	if perr != nil {
		return reply, fmt.Errorf("%s output is not %s: %v; stdout begins %q", name, p.mode(), perr, snippet(string(res.Stdout)))
	}
	if out.failed {
		return reply, fmt.Errorf("%s reported an error: %s", name, text.OneLine(out.message))
	}
	if strings.TrimSpace(reply.Text) == "" {
		if len(out.denials) > 0 {
			return reply, fmt.Errorf("%s gave no answer and denied %d tool use(s); allow the tools it needs (for claude: --permission-mode or --allowedTools after --)", name, len(out.denials))
		}
		msg := fmt.Sprintf("%s printed no answer on stdout", name)
		if l := lastLine(string(res.Stderr)); l != "" {
			msg += "; stderr: " + l
		}
		return reply, errors.New(msg)
	}
	return reply, nil
}

// stderrJSONError finds the message of a JSON error object that ends
// stderr ({"error":{"message":…}}), as gemini and qwen print in JSON
// output mode.
func stderrJSONError(stderr []byte) string {
	b := bytes.TrimSpace(stderr)
	if len(b) == 0 || b[len(b)-1] != '}' {
		return ""
	}
	for i := bytes.LastIndex(b, []byte("\n{")); ; i = bytes.LastIndex(b[:i], []byte("\n{")) {
		start := i + 1
		if i < 0 {
			start = 0
		}
		var obj map[string]any
		if b[start] == '{' && json.Unmarshal(b[start:], &obj) == nil {
			if e, ok := obj["error"]; ok {
				return snippet(errorMessage(e))
			}
			return ""
		}
		if i < 0 {
			return ""
		}
	}
}

// snippet is the start of s on one line, at most 300 bytes.
func snippet(s string) string {
	return text.ClipBytes(text.OneLine(s), 300)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return snippet(lines[len(lines)-1])
}

// tail returns the last n bytes of s as valid UTF-8.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}

// maxSessionID bounds a session id that goes into the command line.
const maxSessionID = 200

// usableSessionID reports whether id may be passed to a CLI's resume flag:
// short, letters, digits and ".", "_", ":", "-" only, not starting with
// "-" (it comes from a CLI's output or from a fetched thread, and must
// never become an option or an over-long argument).
func usableSessionID(id string) bool {
	if id == "" || len(id) > maxSessionID || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}
