package builtins

import (
	"context"
	"errors"

	"github.com/git-uwf/git-uwf/agentkit"
)

// LLM answers with one OpenAI-compatible chat completion of the session's
// prompt.
type LLM struct {
	Endpoint agentkit.LLMEndpoint
	// System is an optional system message.
	System string
}

// Name is "llm:<model>".
func (l *LLM) Name() string {
	if l.Endpoint.Model == "" {
		return "llm"
	}
	return "llm:" + l.Endpoint.Model
}

// Run sends the prompt.
func (l *LLM) Run(ctx context.Context, s *agentkit.Session) (agentkit.Reply, error) {
	return l.complete(ctx, s.Prompt)
}

// Correct sends the prompt again with the rejected answer and the
// correction (the endpoint keeps no conversation).
func (l *LLM) Correct(ctx context.Context, s *agentkit.Session, prev agentkit.Reply, correction string) (agentkit.Reply, error) {
	return l.complete(ctx, s.Prompt+"\n\n## Your Previous Answer\n\n"+prev.Text+"\n\n"+correction)
}

func (l *LLM) complete(ctx context.Context, prompt string) (agentkit.Reply, error) {
	if l.Endpoint.BaseURL == "" {
		return agentkit.Reply{}, errors.New("the llm agent has no endpoint: pass --base-url and --model, or configure models.default with git uwf setup")
	}
	text, err := agentkit.ChatComplete(ctx, l.Endpoint, l.System, prompt)
	if err != nil {
		return agentkit.Reply{}, err
	}
	return agentkit.Reply{Text: text, Detail: map[string]any{"model": l.Endpoint.Model, "baseUrl": l.Endpoint.BaseURL}}, nil
}
