package agentkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/objects"
	"github.com/go-git/go-git/v5/plumbing"
)

// Environment variables of the agent protocol.
const (
	EnvEdgePrompt = "UWF_EDGE_PROMPT"
	EnvThread     = "UWF_THREAD"
	EnvRole       = "UWF_ROLE"
	EnvHead       = "UWF_HEAD"
)

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
		return nil, fmt.Errorf("%w: last stdout line is neither a step alias nor a JSON object: %q", ErrNoAdapterOutput, clip(string(line), 120))
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
		return nil, fmt.Errorf("%w: stepHash %q is not a valid alias", ErrNoAdapterOutput, clip(out.StepHash, 40))
	}
	if out.StepOID != "" && !plumbing.IsHash(out.StepOID) {
		return nil, fmt.Errorf("%w: stepOid %q is not an object id", ErrNoAdapterOutput, clip(out.StepOID, 60))
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
		ref.OID = plumbing.NewHash(o.StepOID)
	}
	return ref, nil
}

func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
