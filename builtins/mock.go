package builtins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
)

// EnvMockScript names the mock script when --script is not given.
const EnvMockScript = "UWF_MOCK_SCRIPT"

// MockScript is a scripted thread: step i of the thread (counting the
// steps already in the chain) gets Steps[i].
type MockScript struct {
	Steps []MockStep `yaml:"steps"`
}

// MockStep is one scripted answer.
type MockStep struct {
	// Role is the role the moderator must ask for at this step.
	Role string `yaml:"role"`
	// Output is the whole answer: frontmatter and markdown. In the file it
	// may also be a mapping, which becomes the frontmatter, with Body as
	// the markdown.
	Output string `yaml:"-"`
	// Corrections are the answers given, in order, when the output is
	// rejected; when they run out, the last answer is repeated.
	Corrections []string `yaml:"corrections"`
}

// UnmarshalYAML accepts output as a string or a mapping (+ body).
func (m *MockStep) UnmarshalYAML(n *yaml.Node) error {
	var raw struct {
		Role        string    `yaml:"role"`
		Output      yaml.Node `yaml:"output"`
		Body        string    `yaml:"body"`
		Corrections []string  `yaml:"corrections"`
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k := n.Content[i]; k.Value {
			case "role", "output", "body", "corrections":
			default:
				return fmt.Errorf("line %d: unknown field %q in a mock step (want role, output, body, corrections)", k.Line, k.Value)
			}
		}
	}
	if err := n.Decode(&raw); err != nil {
		return err
	}
	m.Role, m.Corrections = raw.Role, raw.Corrections
	switch raw.Output.Kind {
	case yaml.ScalarNode:
		m.Output = raw.Output.Value
	case yaml.MappingNode:
		out, err := yaml.Marshal(&raw.Output)
		if err != nil {
			return err
		}
		m.Output = "---\n" + string(out) + "---\n\n" + raw.Body
	case 0:
		return fmt.Errorf("line %d: step has no output", n.Line)
	default:
		return fmt.Errorf("line %d: output must be text or a mapping of frontmatter fields", raw.Output.Line)
	}
	if m.Role == "" {
		return fmt.Errorf("line %d: step has no role", n.Line)
	}
	return nil
}

// LoadMockScript reads a mock script file.
func LoadMockScript(path string) (*MockScript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read mock script: %w", err)
	}
	var s MockScript
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("mock script %s: %w", path, err)
	}
	if len(s.Steps) == 0 {
		return nil, fmt.Errorf("mock script %s has no steps", path)
	}
	return &s, nil
}

// ResolveMockScript finds the script: flag (relative paths against cwd),
// else $UWF_MOCK_SCRIPT.
func ResolveMockScript(flag, cwd string, getenv func(string) string) (string, error) {
	path := flag
	if path == "" {
		path = getenv(EnvMockScript)
	}
	if path == "" {
		return "", errors.New("the mock agent needs a script: pass --script FILE or set " + EnvMockScript)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	return path, nil
}

// Mock replays a MockScript.
type Mock struct {
	Script *MockScript
	// Path is shown in messages.
	Path string

	step        int // the step being played (0-based)
	corrections int // corrections given for it
}

// Name is "mock".
func (m *Mock) Name() string { return "mock" }

// Run answers with the scripted output for the thread's next step.
func (m *Mock) Run(ctx context.Context, s *agentkit.Session) (agentkit.Reply, error) {
	entries, err := s.Repo.Chain(ctx, s.Thread.Head.Commit)
	if err != nil {
		return agentkit.Reply{}, fmt.Errorf("count the thread's steps: %w", err)
	}
	n := 0
	for _, e := range entries {
		if e.Kind == chain.KindStep {
			n++
		}
	}
	if n >= len(m.Script.Steps) {
		return agentkit.Reply{}, fmt.Errorf("mock script %s has %d step(s) and the thread already has %d: nothing scripted for step %d (role %q)",
			m.Path, len(m.Script.Steps), n, n+1, s.Role.Name)
	}
	st := m.Script.Steps[n]
	if st.Role != s.Role.Name {
		return agentkit.Reply{}, fmt.Errorf("mock script step %d expected role %q, but the moderator asked for %q", n+1, st.Role, s.Role.Name)
	}
	m.step, m.corrections = n, 0
	return m.reply(st.Output), nil
}

// Correct answers with the next scripted correction, or the output again.
func (m *Mock) Correct(ctx context.Context, s *agentkit.Session, prev agentkit.Reply, correction string) (agentkit.Reply, error) {
	st := m.Script.Steps[m.step]
	text := prev.Text
	if m.corrections < len(st.Corrections) {
		text = st.Corrections[m.corrections]
	}
	m.corrections++
	return m.reply(text), nil
}

func (m *Mock) reply(text string) agentkit.Reply {
	return agentkit.Reply{Text: text, Detail: map[string]any{"script": m.Path, "stepIndex": m.step}}
}
