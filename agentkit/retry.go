package agentkit

import (
	"context"
	"fmt"
	"strings"
)

// Getting a valid answer out of an agent: the first reply, correction
// rounds, LLM extraction, and the record of the replies that failed.

// The ways an output is obtained, recorded as StepNode.extraction.
const (
	extractedFrontmatter = "frontmatter" // the first reply's frontmatter
	extractedRetry       = "retry"       // a correction's frontmatter
	extractedLLM         = "llm"         // an LLM's reading of the last reply
)

// answer runs the agent and returns its output once it passes extract and
// validate: the first reply, then up to x.retries corrections that quote
// the problems (a problem no correction can fix ends the step at once),
// then, when an LLM endpoint is configured, an LLM's reading of the last
// reply. Every reply that fails is stored, redacted, and listed as
// rejected in the step's detail (or in the StepError, when no reply
// passes).
func (x *execution) answer(ctx context.Context) (*draft, error) {
	name := x.agent.Name()
	reply, err := x.agent.Run(ctx, x.s)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", name, err)
	}
	d := &draft{prompt: x.s.Prompt, edgePrompt: x.s.EdgePrompt, extraction: extractedFrontmatter, attempts: 1}
	var problems []string
	for {
		reply.Text = cleanText(reply.Text)
		d.reply = reply
		var fatal bool
		if d.output, d.body, problems, fatal = x.extract(reply.Text); problems == nil {
			if d.schema, problems = x.validate(d.output); problems == nil {
				return d, nil
			}
		}
		x.reject(d, reply.Text)
		if fatal {
			fmt.Fprintf(x.s.Log, "%s: output rejected (%s); a correction cannot fix this, not retrying\n",
				name, strings.Join(problems, "; "))
			return nil, d.failed(&ExtractionError{Problems: problems, Attempts: d.attempts})
		}
		if d.attempts > x.retries {
			break
		}
		fmt.Fprintf(x.s.Log, "%s: output rejected (%s); asking for a correction (%d/%d)\n",
			name, strings.Join(problems, "; "), d.attempts, x.retries)
		reply, err = x.agent.Correct(ctx, x.s, reply, CorrectionPrompt(problems, x.s.Schema))
		if err != nil {
			return nil, d.failed(fmt.Errorf("agent %s correction: %w", name, err))
		}
		d.attempts++
		d.extraction = extractedRetry
	}
	if x.llm != nil {
		if problems = x.llmExtract(ctx, d, problems); problems == nil {
			return d, nil
		}
	}
	return nil, d.failed(&ExtractionError{Problems: problems, Attempts: d.attempts})
}

// reject stores a reply that failed (redacted) so that the step or the
// failed attempt keeps it. A reply that cannot be stored is only lost as
// evidence.
func (x *execution) reject(d *draft, text string) {
	if text == "" {
		return
	}
	if x.red != nil {
		text, _ = x.red.Redact(text)
	}
	if ref, err := x.db.PutText(text); err == nil {
		d.rejected = append(d.rejected, ref.Alias)
	}
}

// llmExtract asks the configured LLM for the fields of the role's schema
// in the last reply. On success it sets d's output, schema and body and
// returns nil; otherwise it returns problems with the LLM's added.
func (x *execution) llmExtract(ctx context.Context, d *draft, problems []string) []string {
	fmt.Fprintf(x.s.Log, "%s: trying LLM extraction with %s\n", x.agent.Name(), x.llm.Model)
	fields, err := LLMExtract(ctx, *x.llm, x.s.Schema, d.reply.Text)
	if err != nil {
		return append(problems, "llm extraction: "+err.Error())
	}
	output := fields // LLMExtract kept only the schema's fields
	if bad := storableProblems(output); bad != nil {
		return append(problems, "llm extraction: "+strings.Join(bad, "; "))
	}
	if err := x.db.Validate(x.s.SchemaRef, output); err != nil {
		return append(problems, "llm extraction: "+err.Error())
	}
	schema, err := x.schemaOf(output)
	if err != nil {
		return append(problems, "llm extraction: "+err.Error())
	}
	d.output, d.schema, d.extraction = output, schema, extractedLLM
	if _, body, ok := SplitFrontmatter(d.reply.Text); ok {
		d.body = body
	} else {
		d.body = d.reply.Text
	}
	return nil
}
