package agentkit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// This file turns an agent's reply into a step in the object database,
// in the order the stages run: Execute, then extract, validate, redact and
// store. The loop that asks again while a reply is invalid is in
// retry.go. The engine's half, from the AdapterOutput to the thread ref,
// is engine.(*Engine).appendAnswer (engine/append.go).

// Execute plays one step and writes it, without moving any ref:
//
//  1. answer (retry.go): run the agent, extract its reply's frontmatter
//     and body and validate them against the role's schema; while they
//     fail, ask for corrections that quote the problems, then, if
//     configured, an LLM;
//  2. redact: scrub secrets from all that will be stored;
//  3. store: write the output, body, prompt and detail nodes, then the
//     StepNode.
//
// The AdapterOutput names the StepNode; the engine verifies and appends
// it. Most failures after the first reply are a *StepError, which lists
// the nodes stored on the way (the rejected replies) for the failed
// attempt to keep.
func Execute(ctx context.Context, s *Session, agent Agent, opts Options) (*AdapterOutput, error) {
	x, err := newExecution(s, agent, opts)
	if err != nil {
		return nil, err
	}
	started := x.now()
	d, err := x.answer(ctx)
	if err != nil {
		return nil, err
	}
	if err := x.redact(d); err != nil {
		return nil, d.failed(err)
	}
	step, err := x.store(d, started)
	if err != nil {
		return nil, err
	}
	status, _ := d.output["$status"].(string)
	return &AdapterOutput{StepHash: string(step.Alias), StepOID: step.OID.String(), Role: s.Role.Name,
		Status: status, Extraction: d.extraction, Attempts: d.attempts}, nil
}

// execution is one Execute: the session, the agent, and the options with
// their defaults filled in.
type execution struct {
	s     *Session
	agent Agent
	db    *objects.Store // the object database the nodes go to
	now   func() time.Time
	// retries is the number of correction rounds (0: none).
	retries int
	llm     *LLMEndpoint
	// red scrubs secrets; nil when redaction is off.
	red *Redactor
}

func newExecution(s *Session, agent Agent, opts Options) (*execution, error) {
	x := &execution{s: s, agent: agent, db: s.Repo.Store, now: opts.Now, retries: opts.Retries,
		llm: opts.LLM, red: opts.Redactor}
	if x.now == nil {
		x.now = time.Now
	}
	switch {
	case x.retries == 0:
		x.retries = 2
	case x.retries < 0:
		x.retries = 0
	}
	if x.red == nil && !opts.NoRedact {
		var err error
		if x.red, err = NewRedactor(nil); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// draft is the step as it goes through Execute's stages.
type draft struct {
	// reply is the agent's last reply (its text, session and detail).
	reply Reply
	// output is the valid frontmatter, typed by schema (the role's, or
	// the built-in suspend schema for a yield); body is the markdown.
	output map[string]any
	schema objects.Alias
	body   string
	// prompt and edgePrompt are the session's, as they will be stored.
	prompt, edgePrompt string
	// extraction is how the output was obtained (frontmatter, retry or
	// llm) and attempts the number of replies it took.
	extraction string
	attempts   int
	// rejected are the stored (redacted) replies that failed.
	rejected []objects.Alias
	// redactions counts what redact replaced, by kind.
	redactions map[string]int
}

// failed wraps err with the nodes stored on the way (the rejected replies).
func (d *draft) failed(err error) error {
	return &StepError{Err: err, Nodes: d.rejected}
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

// extract reads a reply's text: the frontmatter fields the role's schema
// declares (a yield keeps its own: $status and reason) and the markdown
// body after the frontmatter. fatal is set when the problem is one a
// correction cannot be expected to fix (a frontmatter block over the size
// limit, an alias bomb, values nested too deeply): the step then fails at
// once.
func (x *execution) extract(text string) (output map[string]any, body string, problems []string, fatal bool) {
	fields, body, err := ParseFrontmatter(text)
	if err != nil {
		var fe *FrontmatterError
		return nil, "", []string{err.Error()}, errors.As(err, &fe) && fe.Limit
	}
	if isSuspend(x.s, fields) {
		// Any role of a version 1 workflow may yield, whatever its schema
		// allows: keep the yield's own fields.
		output = map[string]any{"$status": moderator.SuspendStatus}
		if reason := fields[moderator.SuspendReason]; reason != nil {
			output[moderator.SuspendReason] = reason
		}
		return output, body, nil, false
	}
	return filterFields(fields, x.s.Schema), body, nil, false
}

// validate checks an output that extract read: every string storable
// (storableProblems), and the whole valid against its schema, whose alias
// it returns. The problems are what a correction prompt quotes.
func (x *execution) validate(output map[string]any) (schema objects.Alias, problems []string) {
	if problems := storableProblems(output); problems != nil {
		return "", problems
	}
	schema, err := x.schemaOf(output)
	if err != nil {
		return "", []string{err.Error()}
	}
	if err := x.db.Validate(schema, output); err != nil {
		var ve *objects.ValidationError
		if errors.As(err, &ve) && len(ve.Violations) > 0 {
			return "", append([]string(nil), ve.Violations...)
		}
		return "", []string{err.Error()}
	}
	return schema, nil
}

// schemaOf returns the schema that types output: the built-in suspend
// schema for a yield the workflow allows, else the role's.
func (x *execution) schemaOf(output map[string]any) (objects.Alias, error) {
	if isSuspend(x.s, output) {
		return x.s.Repo.Schema("uwf.SuspendOutput")
	}
	return x.s.SchemaRef, nil
}

// redact scrubs secrets from everything the step will store: the output,
// the body, the prompt, the edge prompt and the agent's detail. The output
// was valid; a redacted one is validated again, for a clearer error than
// storing it would give.
func (x *execution) redact(d *draft) error {
	d.redactions = map[string]int{}
	if x.red == nil {
		return nil
	}
	count := func(found []Redaction) {
		for _, r := range found {
			d.redactions[r.Kind] += r.Count
		}
	}
	v, found := x.red.RedactValue(d.output)
	d.output, _ = v.(map[string]any)
	count(found)
	outputRedacted := len(found) > 0
	d.body, found = x.red.Redact(d.body)
	count(found)
	d.prompt, found = x.red.Redact(d.prompt)
	count(found)
	d.edgePrompt, found = x.red.Redact(d.edgePrompt)
	count(found)
	if d.reply.Detail != nil {
		v, found = x.red.RedactValue(d.reply.Detail)
		d.reply.Detail, _ = v.(map[string]any)
		count(found)
	}
	if outputRedacted {
		if err := x.db.Validate(d.schema, d.output); err != nil {
			return fmt.Errorf("output no longer valid after redacting secrets: %w", err)
		}
	}
	return nil
}

// store writes the step's nodes (the output, the body, the assembled
// prompt, the agent's detail) and then the StepNode that names them, and
// returns the StepNode's reference. Its errors keep the rejected replies.
func (x *execution) store(d *draft, started time.Time) (objects.Ref, error) {
	s := x.s
	outRef, err := x.db.Put(d.schema, d.output)
	if err != nil {
		return objects.Ref{}, d.failed(fmt.Errorf("store output: %w", err))
	}
	step := chain.StepNode{Start: s.Thread.StartAlias, Prev: s.Thread.HeadStepAlias(), Role: s.Role.Name,
		Output: outRef.Alias, Agent: x.agent.Name(), EdgePrompt: d.edgePrompt, Cwd: s.RecordedCwd(),
		Extraction: d.extraction, Attempts: d.attempts}
	if len(d.redactions) > 0 {
		step.Redactions = d.redactions
	}
	if strings.TrimSpace(d.body) != "" {
		ref, err := x.db.PutText(d.body)
		if err != nil {
			return objects.Ref{}, d.failed(err)
		}
		step.Body = ref.Alias
	}
	if ref, err := x.db.PutText(d.prompt); err == nil {
		step.AssembledPrompt = ref.Alias
	}
	detailSchema, err := x.db.PutSchema(agentDetailSchema())
	if err != nil {
		return objects.Ref{}, err
	}
	detailRef, err := x.db.Put(detailSchema.Alias, x.detail(d))
	if err != nil {
		return objects.Ref{}, d.failed(fmt.Errorf("store detail: %w", err))
	}
	step.Detail = detailRef.Alias
	step.StartedAtMs = started.UnixMilli()
	step.CompletedAtMs = x.now().UnixMilli()
	stepSchema, err := s.Repo.Schema("uwf.StepNode")
	if err != nil {
		return objects.Ref{}, err
	}
	ref, err := x.db.Put(stepSchema, step)
	if err != nil {
		return objects.Ref{}, d.failed(fmt.Errorf("store step: %w", err))
	}
	return ref, nil
}

// detail is the step's AgentDetail: the agent's name, its own detail, its
// session and the replies that were rejected.
func (x *execution) detail(d *draft) map[string]any {
	detail := map[string]any{"agent": x.agent.Name()}
	maps.Copy(detail, d.reply.Detail)
	if d.reply.SessionID != "" {
		detail["sessionId"] = d.reply.SessionID
	}
	if len(d.rejected) > 0 {
		raws := make([]any, len(d.rejected))
		for i, r := range d.rejected {
			raws[i] = string(r)
		}
		detail["rejected"] = raws
	}
	return detail
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
