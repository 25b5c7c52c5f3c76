package agentkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/text"
	"github.com/git-uwf/git-uwf/objects"
)

// Environment variables of the agent protocol.
const (
	EnvEdgePrompt = "UWF_EDGE_PROMPT"
	// EnvEdgePromptFile names a file holding the whole edge prompt, byte
	// for byte. The engine always sets it; agents read it in preference
	// to EnvEdgePrompt, which holds the prompt only when it fits in an
	// environment variable (see EdgePromptFitsEnv).
	EnvEdgePromptFile = "UWF_EDGE_PROMPT_FILE"
	EnvThread         = "UWF_THREAD"
	EnvRole           = "UWF_ROLE"
	EnvHead           = "UWF_HEAD"
)

// MaxEdgePromptEnv is the largest edge prompt, in bytes, that the engine
// puts into EnvEdgePrompt as it is. A longer prompt, or one that holds a
// NUL byte or invalid UTF-8, reaches the agent whole only through
// EnvEdgePromptFile; EnvEdgePrompt then holds a cleaned, shortened copy
// (see EdgePromptForEnv). 32 KiB stays far below every platform's limit
// for one variable (Linux: 128 KiB) and for the whole environment.
const MaxEdgePromptEnv = 32 << 10

// MaxEdgePromptFile bounds the edge prompt file an agent reads.
const MaxEdgePromptFile = 64 << 20

// EdgePromptFitsEnv reports whether prompt can travel in EnvEdgePrompt as it
// is: at most MaxEdgePromptEnv bytes, valid UTF-8 and no NUL byte.
func EdgePromptFitsEnv(prompt string) bool {
	return len(prompt) <= MaxEdgePromptEnv && utf8.ValidString(prompt) && strings.IndexByte(prompt, 0) < 0
}

// EdgePromptForEnv returns the value for EnvEdgePrompt: prompt itself when
// it fits, else a copy without NUL bytes, with invalid UTF-8 replaced and
// cut to MaxEdgePromptEnv bytes with a note that the whole prompt is in
// the file named by EnvEdgePromptFile. Scripts that only read the
// variable still get the start of their instruction.
func EdgePromptForEnv(prompt string) string {
	if EdgePromptFitsEnv(prompt) {
		return prompt
	}
	s := cleanText(prompt)
	const note = "\n\n[git-uwf: the instruction is cut here; the whole text is in the file $" + EnvEdgePromptFile + "]"
	if len(s) > MaxEdgePromptEnv {
		n := MaxEdgePromptEnv - len(note)
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + note
	}
	return s
}

// ReadEdgePrompt returns the edge prompt of the protocol: the file named by
// EnvEdgePromptFile when set, else EnvEdgePrompt. NUL bytes are dropped
// and invalid UTF-8 is replaced, so whatever the moderator rendered can be
// put into a prompt and stored.
func ReadEdgePrompt(getenv func(string) string) (string, error) {
	path := getenv(EnvEdgePromptFile)
	if path == "" {
		return cleanText(getenv(EnvEdgePrompt)), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read the edge prompt: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxEdgePromptFile+1))
	if err != nil {
		return "", fmt.Errorf("read the edge prompt %s: %w", path, err)
	}
	if len(b) > MaxEdgePromptFile {
		return "", fmt.Errorf("edge prompt %s is larger than %d bytes", path, MaxEdgePromptFile)
	}
	return cleanText(string(b)), nil
}

// AdapterOutput is the JSON object an agent prints as its last stdout line.
// On success StepHash (and StepOID) name the new StepNode. On failure Error
// is set and Nodes lists what the agent stored anyway (its raw reply, …),
// so the engine can keep it reachable.
type AdapterOutput struct {
	StepHash   string   `json:"stepHash,omitempty"`
	StepOID    string   `json:"stepOid,omitempty"`
	Role       string   `json:"role,omitempty"`
	Status     string   `json:"status,omitempty"`
	Extraction string   `json:"extraction,omitempty"`
	Attempts   int      `json:"attempts,omitempty"`
	Error      string   `json:"error,omitempty"`
	Nodes      []string `json:"nodes,omitempty"`
}

// MaxAdapterLine bounds the last stdout line the engine will parse.
const MaxAdapterLine = 1 << 20

// ErrNoAdapterOutput means the agent printed nothing the engine can use.
var ErrNoAdapterOutput = errors.New("agent printed no step")

// ParseAdapterOutput reads an agent's stdout: the last non-empty line is
// either a bare StepNode alias or an AdapterOutput JSON object. Earlier
// lines are logs and are ignored.
func ParseAdapterOutput(stdout []byte) (*AdapterOutput, error) {
	trimmed := bytes.TrimRight(stdout, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: stdout is empty", ErrNoAdapterOutput)
	}
	line := trimmed
	if i := bytes.LastIndexByte(trimmed, '\n'); i >= 0 {
		line = trimmed[i+1:]
	}
	line = bytes.TrimSpace(line)
	if len(line) > MaxAdapterLine {
		return nil, fmt.Errorf("%w: last stdout line is %d bytes long", ErrNoAdapterOutput, len(line))
	}
	if a, err := objects.ParseAlias(string(line)); err == nil {
		return &AdapterOutput{StepHash: string(a)}, nil
	}
	if len(line) == 0 || line[0] != '{' {
		return nil, fmt.Errorf("%w: last stdout line is neither a step alias nor a JSON object: %q", ErrNoAdapterOutput, text.Clip(string(line), 120))
	}
	var out AdapterOutput
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("%w: last stdout line is not valid JSON: %v", ErrNoAdapterOutput, err)
	}
	if out.Error != "" {
		return &out, nil
	}
	if _, err := objects.ParseAlias(out.StepHash); err != nil {
		return nil, fmt.Errorf("%w: stepHash %q is not a valid alias", ErrNoAdapterOutput, text.Clip(out.StepHash, 40))
	}
	if out.StepOID != "" && !gitobj.IsHash(out.StepOID) {
		return nil, fmt.Errorf("%w: stepOid %q is not an object id", ErrNoAdapterOutput, text.Clip(out.StepOID, 60))
	}
	return &out, nil
}

// StepRef returns the step named by the output.
func (o *AdapterOutput) StepRef() (objects.Ref, error) {
	a, err := objects.ParseAlias(o.StepHash)
	if err != nil {
		return objects.Ref{}, err
	}
	ref := objects.Ref{Alias: a}
	if o.StepOID != "" {
		ref.OID = gitobj.NewHash(o.StepOID)
	}
	return ref, nil
}
