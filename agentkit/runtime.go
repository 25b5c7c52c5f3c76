package agentkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
	"github.com/go-git/go-git/v5/plumbing"
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
		if !plumbing.IsHash(req.Head) {
			return nil, fmt.Errorf("%s=%q is not a commit id", EnvHead, req.Head)
		}
		t, err = repo.ThreadAt(ctx, id, plumbing.NewHash(req.Head))
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

// ExtractionError means no valid output could be obtained.
type ExtractionError struct {
	Problems []string
	Attempts int
}

func (e *ExtractionError) Error() string {
	return fmt.Sprintf("no valid frontmatter after %d attempt(s): %s", e.Attempts, strings.Join(e.Problems, "; "))
}

// StepError is a failed Execute with what was stored on the way, so that
// the caller can keep it reachable.
type StepError struct {
	Err   error
	Nodes []objects.Alias
}

func (e *StepError) Error() string { return e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// Execute plays one step: run the agent, extract and validate its output
// (with corrections and optional LLM extraction), redact secrets, write
// the nodes and the StepNode. It does not move any ref.
func Execute(ctx context.Context, s *Session, agent Agent, opts Options) (*AdapterOutput, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	retries := opts.Retries
	if retries == 0 {
		retries = 2
	}
	if retries < 0 {
		retries = 0
	}
	red := opts.Redactor
	if red == nil && !opts.NoRedact {
		var err error
		if red, err = NewRedactor(nil); err != nil {
			return nil, err
		}
	}
	store := s.Repo.Store
	started := now()

	reply, err := agent.Run(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", agent.Name(), err)
	}
	reply.Text = cleanText(reply.Text)
	var kept []objects.Alias
	keepRaw := func(text string) {
		if text == "" {
			return
		}
		if red != nil {
			text, _ = red.Redact(text)
		}
		if ref, err := store.PutText(text); err == nil {
			kept = append(kept, ref.Alias)
		}
	}
	extraction := "frontmatter"
	attempts := 1
	var output map[string]any
	var body string
	var problems []string
	var fatal bool
	for {
		output, body, problems, fatal = extractValid(store, s, reply.Text)
		if problems == nil {
			break
		}
		keepRaw(reply.Text)
		if fatal {
			// A correction cannot fix a broken limit: no paid re-run.
			fmt.Fprintf(s.Log, "%s: output rejected (%s); a correction cannot fix this, not retrying\n",
				agent.Name(), strings.Join(problems, "; "))
			break
		}
		if attempts > retries {
			break
		}
		fmt.Fprintf(s.Log, "%s: output rejected (%s); asking for a correction (%d/%d)\n",
			agent.Name(), strings.Join(problems, "; "), attempts, retries)
		reply, err = agent.Correct(ctx, s, reply, CorrectionPrompt(problems, s.Schema))
		if err != nil {
			return nil, &StepError{Err: fmt.Errorf("agent %s correction: %w", agent.Name(), err), Nodes: kept}
		}
		reply.Text = cleanText(reply.Text)
		attempts++
		extraction = "retry"
	}
	if problems != nil && opts.LLM != nil && !fatal {
		fmt.Fprintf(s.Log, "%s: trying LLM extraction with %s\n", agent.Name(), opts.LLM.Model)
		fields, err := LLMExtract(ctx, *opts.LLM, s.Schema, reply.Text)
		if err == nil {
			output = keepFields(fields, s.Schema)
			if bad := storableProblems(output); bad != nil {
				problems = append(problems, "llm extraction: "+strings.Join(bad, "; "))
			} else if verr := store.Validate(s.SchemaRef, output); verr == nil {
				problems, extraction = nil, "llm"
				if _, b, ok := SplitFrontmatter(reply.Text); ok {
					body = b
				} else {
					body = reply.Text
				}
			} else {
				problems = append(problems, "llm extraction: "+verr.Error())
			}
		} else {
			problems = append(problems, "llm extraction: "+err.Error())
		}
	}
	if problems != nil {
		return nil, &StepError{Err: &ExtractionError{Problems: problems, Attempts: attempts}, Nodes: kept}
	}
	// A yield is stored under the built-in suspend schema, not the role's.
	schemaRef := s.SchemaRef
	if isSuspend(s, output) {
		if schemaRef, err = s.Repo.Schema("uwf.SuspendOutput"); err != nil {
			return nil, err
		}
	}

	redactions := map[string]int{}
	prompt := s.Prompt
	edgePrompt := s.EdgePrompt
	if red != nil {
		var found []Redaction
		var v any
		v, found = red.RedactValue(output)
		output, _ = v.(map[string]any)
		count(redactions, found)
		outputRedacted := len(found) > 0
		body, found = red.Redact(body)
		count(redactions, found)
		prompt, found = red.Redact(prompt)
		count(redactions, found)
		edgePrompt, found = red.Redact(edgePrompt)
		count(redactions, found)
		if reply.Detail != nil {
			v, found = red.RedactValue(reply.Detail)
			reply.Detail, _ = v.(map[string]any)
			count(redactions, found)
		}
		// The output was valid before; only a redacted one needs a check
		// here (for a clearer error than storing it would give).
		if outputRedacted {
			if err := store.Validate(schemaRef, output); err != nil {
				return nil, &StepError{Err: fmt.Errorf("output no longer valid after redacting secrets: %w", err), Nodes: kept}
			}
		}
	}
	outRef, err := store.Put(schemaRef, output)
	if err != nil {
		return nil, &StepError{Err: fmt.Errorf("store output: %w", err), Nodes: kept}
	}
	step := chain.StepNode{Start: s.Thread.StartAlias, Prev: s.Thread.HeadStepAlias(), Role: s.Role.Name,
		Output: outRef.Alias, Agent: agent.Name(), EdgePrompt: edgePrompt, Cwd: s.Cwd,
		Extraction: extraction, Attempts: attempts}
	step.Cwd = s.RecordedCwd()
	if len(redactions) > 0 {
		step.Redactions = redactions
	}
	if strings.TrimSpace(body) != "" {
		ref, err := store.PutText(body)
		if err != nil {
			return nil, &StepError{Err: err, Nodes: kept}
		}
		step.Body = ref.Alias
	}
	if ref, err := store.PutText(prompt); err == nil {
		step.AssembledPrompt = ref.Alias
	}
	detail := map[string]any{"agent": agent.Name()}
	for k, v := range reply.Detail {
		detail[k] = v
	}
	if reply.SessionID != "" {
		detail["sessionId"] = reply.SessionID
	}
	if len(kept) > 0 {
		raws := make([]any, len(kept))
		for i, a := range kept {
			raws[i] = string(a)
		}
		detail["rejected"] = raws
	}
	detailSchema, err := store.PutSchema(agentDetailSchema())
	if err != nil {
		return nil, err
	}
	detailRef, err := store.Put(detailSchema.Alias, detail)
	if err != nil {
		return nil, &StepError{Err: fmt.Errorf("store detail: %w", err), Nodes: kept}
	}
	step.Detail = detailRef.Alias
	step.StartedAtMs = started.UnixMilli()
	step.CompletedAtMs = now().UnixMilli()
	stepSchema, err := s.Repo.Schema("uwf.StepNode")
	if err != nil {
		return nil, err
	}
	stepRef, err := store.Put(stepSchema, step)
	if err != nil {
		return nil, &StepError{Err: fmt.Errorf("store step: %w", err), Nodes: kept}
	}
	status, _ := output["$status"].(string)
	return &AdapterOutput{StepHash: string(stepRef.Alias), StepOID: stepRef.OID.String(), Role: s.Role.Name,
		Status: status, Extraction: extraction, Attempts: attempts}, nil
}

func count(into map[string]int, found []Redaction) {
	for _, r := range found {
		into[r.Kind] += r.Count
	}
}

// extractValid runs the fast path and validation; nil problems means ok.
//
// fatal is set when the problem is one a correction cannot be expected to
// fix (a frontmatter block over the size limit, an alias bomb, values
// nested too deeply): the step then fails at once.
func extractValid(store *objects.Store, s *Session, text string) (output map[string]any, body string, problems []string, fatal bool) {
	out, body, err := ExtractOutput(text, s.Schema)
	if err != nil {
		var fe *FrontmatterError
		return nil, "", []string{err.Error()}, errors.As(err, &fe) && fe.Limit
	}
	if problems := storableProblems(out); problems != nil {
		return nil, "", problems, false
	}
	ref := s.SchemaRef
	if fields, _, _ := ParseFrontmatter(text); isSuspend(s, fields) {
		// Any role of a version 1 workflow may yield, whatever its schema
		// allows: keep the yield's own fields and check them.
		out = map[string]any{moderator.SuspendReason: fields[moderator.SuspendReason], "$status": moderator.SuspendStatus}
		if out[moderator.SuspendReason] == nil {
			delete(out, moderator.SuspendReason)
		}
		if ref, err = s.Repo.Schema("uwf.SuspendOutput"); err != nil {
			return nil, "", []string{err.Error()}, false
		}
	}
	if err := store.Validate(ref, out); err != nil {
		var ve *objects.ValidationError
		if errors.As(err, &ve) && len(ve.Violations) > 0 {
			return nil, "", append([]string(nil), ve.Violations...), false
		}
		return nil, "", []string{err.Error()}, false
	}
	return out, body, nil, false
}

// maxStorableProblems bounds the problems storableProblems reports.
const maxStorableProblems = 5

// storableProblems reports the strings of an output that git-uwf does not
// store: a NUL byte is never part of a deliverable, and a value holding
// one would reach the next step's instruction. Keys and values are
// checked; the problems name the field so the agent can correct it.
func storableProblems(output map[string]any) []string {
	var problems []string
	var walk func(v any, path string, depth int)
	walk = func(v any, path string, depth int) {
		if len(problems) >= maxStorableProblems || depth > maxYAMLDepth {
			return
		}
		switch x := v.(type) {
		case string:
			if strings.IndexByte(x, 0) >= 0 {
				problems = append(problems, fmt.Sprintf("%s: the value holds a NUL character (\\0), which a frontmatter value may not contain; remove it or describe it in words", path))
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if strings.IndexByte(k, 0) >= 0 {
					problems = append(problems, fmt.Sprintf("%s: a field name holds a NUL character (\\0); remove it", path))
					continue
				}
				walk(x[k], path+"/"+k, depth+1)
			}
		case []any:
			for i, item := range x {
				walk(item, fmt.Sprintf("%s/%d", path, i), depth+1)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(output)) {
		if strings.IndexByte(k, 0) >= 0 {
			problems = append(problems, "a field name holds a NUL character (\\0); remove it")
			continue
		}
		walk(output[k], k, 1)
	}
	return problems
}

// isSuspend says whether output is a yield ($status "$SUSPEND") that the
// session's workflow allows (version 1).
func isSuspend(s *Session, output map[string]any) bool {
	st, _ := output["$status"].(string)
	return st == moderator.SuspendStatus && s.Thread != nil && s.Thread.Workflow != nil &&
		s.Thread.Workflow.Workflow.Version >= moderator.DialectV1
}

// keepFields keeps only the schema's top-level fields.
func keepFields(fields map[string]any, schema map[string]any) map[string]any {
	out := map[string]any{}
	for _, name := range SchemaFields(schema) {
		if v, ok := fields[name]; ok {
			out[name] = v
		}
	}
	return out
}

func agentDetailSchema() map[string]any {
	return map[string]any{
		"title": "uwf.AgentDetail",
		"type":  "object",
		"properties": map[string]any{
			"agent":     map[string]any{"type": "string"},
			"sessionId": map[string]any{"type": "string"},
			"rejected":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "format": "uwf_ref"}},
			"stderr":    map[string]any{"type": "string"},
			"exitCode":  map[string]any{"type": "integer"},
		},
		"required": []any{"agent"},
	}
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
