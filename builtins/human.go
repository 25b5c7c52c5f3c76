package builtins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/git-uwf/git-uwf/agentkit"
)

// Scissors separates the answer from the instructions in the human agent's
// file; everything from this line on is dropped.
const Scissors = "# ------------------------ >8 ------------------------"

// ErrNoAnswer is returned when the person gave no answer.
var ErrNoAnswer = errors.New("no answer given")

// Human lets a person play the role: in $VISUAL/$EDITOR on a file
// pre-filled with a frontmatter template and the instructions as comments,
// or, when stdin is not a terminal and carries an answer, from stdin.
type Human struct {
	// Stdin is read for the answer when StdinTTY is false.
	Stdin    io.Reader
	StdinTTY bool
	// Editor is the editor command line (from $VISUAL, $EDITOR, else vi).
	Editor string
	// OpenTerminal opens the terminal the editor runs on (nil: /dev/tty).
	// When it fails, the editor gets Stdin and Stderr.
	OpenTerminal func() (*os.File, error)
	// Stderr receives the editor's output when there is no terminal.
	Stderr io.Writer
	// Env is the editor's environment (nil: inherit).
	Env []string

	fromStdin bool
}

// EditorFrom picks the editor command line from the environment.
func EditorFrom(getenv func(string) string) string {
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v
		}
	}
	return "vi"
}

// Name is "human".
func (h *Human) Name() string { return "human" }

// Run gets the person's answer.
func (h *Human) Run(ctx context.Context, s *agentkit.Session) (agentkit.Reply, error) {
	if !h.StdinTTY && h.Stdin != nil {
		b, err := io.ReadAll(h.Stdin)
		if err != nil {
			return agentkit.Reply{}, fmt.Errorf("read the answer from stdin: %w", err)
		}
		if text := strings.TrimSpace(string(b)); text != "" {
			h.fromStdin = true
			return agentkit.Reply{Text: text, Detail: map[string]any{"input": "stdin"}}, nil
		}
		// An empty stdin (as the engine gives): fall back to the editor on
		// the terminal, if there is one.
	}
	return h.edit(ctx, Template(s.Schema), s.Prompt)
}

// Correct asks again: in the editor, with the rejected answer and the
// problems; from stdin there is no second chance.
func (h *Human) Correct(ctx context.Context, s *agentkit.Session, prev agentkit.Reply, correction string) (agentkit.Reply, error) {
	if h.fromStdin {
		return agentkit.Reply{}, fmt.Errorf("the answer read from stdin was rejected:\n%s", correction)
	}
	return h.edit(ctx, prev.Text+"\n", correction+"\n\n"+s.Prompt)
}

// edit runs the editor on a file holding answer and, below the scissors
// line, the instructions as comments.
func (h *Human) edit(ctx context.Context, answer, instructions string) (agentkit.Reply, error) {
	f, err := os.CreateTemp("", "uwf-answer-*.md")
	if err != nil {
		return agentkit.Reply{}, fmt.Errorf("create the answer file: %w", err)
	}
	path := f.Name()
	defer os.Remove(path)
	content := answer + "\n" + Scissors + "\n" + comment(
		"Write your answer above this line: fill in the frontmatter fields, then your\n"+
			"markdown. Save and quit to submit; leave the answer unchanged or empty to give none.\n"+
			"Everything from the line above on is ignored.\n\n"+instructions)
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return agentkit.Reply{}, fmt.Errorf("write the answer file: %w", err)
	}
	if err := f.Close(); err != nil {
		return agentkit.Reply{}, fmt.Errorf("write the answer file: %w", err)
	}
	argv, err := shellquote.Split(h.Editor)
	if err != nil || len(argv) == 0 {
		return agentkit.Reply{}, fmt.Errorf("editor %q is not a command line", h.Editor)
	}
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], path)...)
	cmd.Env = h.Env
	open := h.OpenTerminal
	if open == nil {
		open = func() (*os.File, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) }
	}
	if tty, terr := open(); terr == nil {
		defer tty.Close()
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		err = runOnTerminal(cmd, tty)
	} else {
		if h.StdinTTY {
			cmd.Stdin = h.Stdin
		}
		cmd.Stdout, cmd.Stderr = h.Stderr, h.Stderr
		if !h.StdinTTY && h.Stdin != nil {
			return agentkit.Reply{}, fmt.Errorf("%w: stdin was empty and there is no terminal to run %s on", ErrNoAnswer, argv[0])
		}
		err = cmd.Run()
	}
	if err != nil {
		return agentkit.Reply{}, fmt.Errorf("editor %s: %w", h.Editor, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return agentkit.Reply{}, fmt.Errorf("read the answer file: %w", err)
	}
	edited := string(b)
	if i := strings.Index(edited, Scissors); i >= 0 {
		edited = edited[:i]
	}
	if strings.TrimSpace(edited) == "" || strings.TrimSpace(edited) == strings.TrimSpace(answer) {
		return agentkit.Reply{}, ErrNoAnswer
	}
	return agentkit.Reply{Text: strings.TrimSpace(edited), Detail: map[string]any{"input": "editor", "editor": h.Editor}}, nil
}

// comment prefixes every line with "# ".
func comment(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l == "" {
			b.WriteString("#\n")
		} else {
			b.WriteString("# " + l + "\n")
		}
	}
	return b.String()
}

// Template is the frontmatter block a person fills in: one line per field
// of the role's schema, with the expected type as a comment.
func Template(schema map[string]any) string {
	props := properties(schema)
	required := map[string]bool{}
	collectRequired(schema, required)
	var b strings.Builder
	b.WriteString("---\n")
	for _, name := range agentkit.SchemaFields(schema) {
		hint := typeHint(props[name])
		if required[name] {
			hint = "required; " + hint
		}
		fmt.Fprintf(&b, "%s:   # %s\n", yamlKey(name), hint)
	}
	b.WriteString("---\n\n")
	return b.String()
}

// yamlKey quotes a key that plain YAML would misread.
func yamlKey(name string) string {
	if strings.ContainsAny(name, ":#{}[],&*!|>'\"%@`") || strings.HasPrefix(name, "-") {
		return fmt.Sprintf("%q", name)
	}
	return name
}

// properties merges the property schemas of schema and its variants.
func properties(schema map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	var walk func(s map[string]any)
	walk = func(s map[string]any) {
		if p, ok := s["properties"].(map[string]any); ok {
			for name, v := range p {
				ps, _ := v.(map[string]any)
				if prev, seen := out[name]; seen {
					out[name] = mergeAlternatives(prev, ps)
				} else {
					out[name] = ps
				}
			}
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			if vs, ok := s[k].([]any); ok {
				for _, v := range vs {
					if vm, ok := v.(map[string]any); ok {
						walk(vm)
					}
				}
			}
		}
	}
	walk(schema)
	return out
}

// mergeAlternatives joins two variants' schemas of one field into an enum
// when both are constants or enums.
func mergeAlternatives(a, b map[string]any) map[string]any {
	va, vb := enumValues(a), enumValues(b)
	if va == nil || vb == nil {
		return a
	}
	return map[string]any{"enum": append(va, vb...)}
}

func enumValues(s map[string]any) []any {
	if c, ok := s["const"]; ok {
		return []any{c}
	}
	if e, ok := s["enum"].([]any); ok {
		return e
	}
	return nil
}

func collectRequired(schema map[string]any, into map[string]bool) {
	if r, ok := schema["required"].([]any); ok {
		for _, v := range r {
			if s, ok := v.(string); ok {
				into[s] = true
			}
		}
	}
	if r, ok := schema["required"].([]string); ok {
		for _, s := range r {
			into[s] = true
		}
	}
}

// typeHint describes what a field takes.
func typeHint(s map[string]any) string {
	if vals := enumValues(s); vals != nil {
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		return "one of: " + strings.Join(parts, " | ")
	}
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, v := range t {
			parts = append(parts, fmt.Sprint(v))
		}
		sort.Strings(parts)
		return strings.Join(parts, " or ")
	}
	return "any value"
}
