package agentkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// Session is everything an agent needs to play one step.
type Session struct {
	Repo   *chain.Repo
	Thread *chain.Thread
	// Role is the role to play; Schema is its frontmatter JSON Schema.
	Role       *moderator.Role
	Schema     map[string]any
	SchemaRef  objects.Alias
	EdgePrompt string
	// History is the thread so far, rendered as markdown within the budget.
	History string
	// Prompt is the complete prompt: role, task, history, instruction and
	// the output-format instruction.
	Prompt string
	// Cwd is the step's working directory.
	Cwd string
	// Log receives progress messages (the agent's stderr).
	Log io.Writer
}

// Reply is what an agent produced for a turn.
type Reply struct {
	// Text is the agent's answer: frontmatter followed by markdown.
	Text string
	// SessionID identifies the agent's own conversation, when it has one,
	// so a later correction or step can resume it.
	SessionID string
	// Detail is agent-specific JSON-able data kept with the step
	// (model, usage, exit codes…).
	Detail map[string]any
}

// Agent plays a role.
type Agent interface {
	// Name identifies the agent in steps ("mock", "pipe:claude", …).
	Name() string
	// Run produces the first reply for the session.
	Run(ctx context.Context, s *Session) (Reply, error)
	// Correct asks for a new reply after prev failed validation; correction
	// quotes the problems. Agents without conversations may simply run
	// again with the correction appended to the prompt.
	Correct(ctx context.Context, s *Session, prev Reply, correction string) (Reply, error)
}

// Options tune Execute.
type Options struct {
	// Retries is the number of correction rounds after the first reply
	// (default 2; negative means none).
	Retries int
	// LLM, when set, is tried after the retries are exhausted.
	LLM *LLMEndpoint
	// Redactor scrubs secrets before anything is stored (nil: defaults).
	Redactor *Redactor
	// NoRedact turns redaction off.
	NoRedact bool
	// HistoryBudget bounds the rendered history in characters.
	HistoryBudget int
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Request identifies the step to play, normally taken from the protocol's
// arguments and environment (see RequestFromEnv).
type Request struct {
	Thread     string
	Role       string
	EdgePrompt string
	Head       string
	Cwd        string
}

// RequestFromEnv builds a Request from the protocol: the last two
// arguments are the thread id and the role; the environment carries the
// head and the edge prompt (read with ReadEdgePrompt: the file named by
// UWF_EDGE_PROMPT_FILE first, else UWF_EDGE_PROMPT).
func RequestFromEnv(args []string, getenv func(string) string) (Request, error) {
	if len(args) < 2 {
		return Request{}, errors.New("usage: <agent> [args…] <thread-id> <role> (with UWF_EDGE_PROMPT_FILE or UWF_EDGE_PROMPT set)")
	}
	edge, err := ReadEdgePrompt(getenv)
	if err != nil {
		return Request{}, err
	}
	req := Request{Thread: args[len(args)-2], Role: args[len(args)-1], EdgePrompt: edge, Head: getenv(EnvHead)}
	if strings.TrimSpace(req.EdgePrompt) == "" {
		return Request{}, fmt.Errorf("%s and %s are empty: the moderator's instruction is missing", EnvEdgePromptFile, EnvEdgePrompt)
	}
	wd, err := os.Getwd()
	if err != nil {
		return Request{}, err
	}
	req.Cwd = wd
	return req, nil
}

// NewSession loads the thread and builds the prompt for a request.
func NewSession(ctx context.Context, repo *chain.Repo, req Request, opts Options) (*Session, error) {
	id, err := chain.ParseThreadID(req.Thread)
	if err != nil {
		return nil, err
	}
	var t *chain.Thread
	if req.Head != "" {
		if !gitobj.IsHash(req.Head) {
			return nil, fmt.Errorf("%s=%q is not a commit id", EnvHead, req.Head)
		}
		t, err = repo.ThreadAt(ctx, id, gitobj.NewHash(req.Head))
	} else {
		t, err = repo.Thread(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	role := t.Workflow.Workflow.Roles[req.Role]
	if role == nil {
		return nil, fmt.Errorf("role %q is not in workflow %s", req.Role, t.Workflow.Name)
	}
	budget := opts.HistoryBudget
	if budget <= 0 {
		budget = 16000
	}
	history := ""
	if t.Head.Kind != chain.KindStart {
		history, err = repo.Read(ctx, t, chain.ReadOptions{Quota: budget, Before: "", Start: false})
		if err != nil {
			return nil, fmt.Errorf("render history: %w", err)
		}
		history = stripTaskSection(history)
	}
	s := &Session{Repo: repo, Thread: t, Role: role, Schema: role.Frontmatter,
		SchemaRef: t.Workflow.RoleSchemas[req.Role], EdgePrompt: req.EdgePrompt,
		History: history, Cwd: req.Cwd, Log: io.Discard}
	s.Prompt = AssemblePrompt(PromptParts{Role: role, Task: t.Start.Prompt, History: history, EdgePrompt: req.EdgePrompt, Location: req.Cwd,
		CanSuspend: t.Workflow.Workflow.Version >= moderator.DialectV1})
	return s, nil
}

// stripTaskSection drops the "# Thread … ## Task" header of a rendering:
// the assembled prompt states the task itself.
func stripTaskSection(md string) string {
	if i := strings.Index(md, "\n\n---\n\n"); i >= 0 && strings.HasPrefix(md, "# Thread") {
		return md[i+len("\n\n---\n\n"):]
	}
	return md
}

// Print writes the AdapterOutput as the final stdout line.
func (o *AdapterOutput) Print(w io.Writer) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// cleanText makes an agent's reply storable: invalid UTF-8 becomes U+FFFD
// and NUL bytes are dropped (they are never part of a deliverable).
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "")
}
