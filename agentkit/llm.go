package agentkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/internal/llmwire"
	"github.com/git-uwf/git-uwf/internal/text"
)

// EnvLLMProgram names the program that sends chat completion requests
// (git-uwf-llm, see [LLMEndpoint].Program); the engine sets it for every
// agent, and [OptionsFromEnv] reads it.
const EnvLLMProgram = "UWF_LLM_PROGRAM"

// LLMEndpoint is an OpenAI-compatible chat completion endpoint.
type LLMEndpoint struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1"; the request
	// goes to BaseURL + "/chat/completions".
	BaseURL string
	// APIKey is sent as a bearer token; "" sends no Authorization header
	// (local servers).
	APIKey string
	Model  string
	// Timeout bounds one request; 0 means only the context bounds it.
	Timeout time.Duration
	// Program is the path of git-uwf-llm, the program that sends the
	// request: agentkit links no HTTP client, so that git-uwf, which
	// imports it, starts without one. The program gets the request on
	// its stdin and the API key in its environment, and is killed when
	// the context ends. "" is an error that says how to install it.
	Program string
}

// ChatComplete sends one non-streaming chat completion request with an
// optional system message and a user message, and returns the content of the
// first choice. Errors name the HTTP status and quote the start of the
// response body; the API key never appears in them.
func ChatComplete(ctx context.Context, ep LLMEndpoint, system, user string) (string, error) {
	return chatComplete(ctx, ep, system, user, "")
}

func chatComplete(ctx context.Context, ep LLMEndpoint, system, user, format string) (string, error) {
	if ep.BaseURL == "" {
		return "", errors.New("chat completion: no base URL configured")
	}
	if ep.Model == "" {
		return "", errors.New("chat completion: no model configured")
	}
	req := llmwire.Request{Op: llmwire.OpChat, BaseURL: ep.BaseURL, Model: ep.Model, System: system, User: user,
		ResponseFormat: format, Timeout: ep.Timeout}
	reply, err := llmwire.Run(ctx, ep.Program, req, ep.APIKey)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			_, shown := llmwire.ChatEndpoint(ep.BaseURL)
			return "", fmt.Errorf("chat completion %s: %w", shown, err)
		}
		if _, ok := errors.AsType[*llmwire.NotInstalledError](err); ok {
			return "", fmt.Errorf("chat completion: %w", err)
		}
		return "", err
	}
	return reply.Content, nil
}

// LLMExtract asks the model at ep to turn an agent's free-form answer into
// one JSON object satisfying schema (response_format "json_object"). A
// ```json fence around the reply is tolerated. The object is reduced to the
// schema's fields like [ExtractOutput]; numbers follow the same convention
// (int64 for integers, float64 otherwise). The result is not validated, and
// a model can invent values, so callers should record that it was extracted
// this way.
func LLMExtract(ctx context.Context, ep LLMEndpoint, schema map[string]any, agentText string) (map[string]any, error) {
	schemaJSON, err := json.MarshalIndent(schema, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("llm extract: encode schema: %w", err)
	}
	system := "You convert an agent's answer into structured data. " +
		"Reply with exactly one JSON object and nothing else: no prose, no markdown. " +
		"Take the values from the answer; do not invent any. " +
		"The object must satisfy this JSON Schema:\n" + string(schemaJSON)
	reply, err := chatComplete(ctx, ep, system, agentText, "json_object")
	if err != nil {
		return nil, fmt.Errorf("llm extract: %w", err)
	}
	obj, err := parseJSONObject(reply)
	if err != nil {
		return nil, fmt.Errorf("llm extract: %w", err)
	}
	return filterFields(obj, schema), nil
}

// parseJSONObject decodes a model reply that should be one JSON object,
// possibly inside a code fence or surrounded by stray text.
func parseJSONObject(reply string) (map[string]any, error) {
	s := strings.TrimSpace(reply)
	if strings.HasPrefix(s, "```") {
		if _, rest, ok := strings.Cut(s, "\n"); ok {
			s = rest
		} else {
			s = strings.TrimPrefix(s, "```")
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	if !strings.HasPrefix(s, "{") {
		if i, j := strings.Index(s, "{"), strings.LastIndex(s, "}"); i >= 0 && j > i {
			s = s[i : j+1]
		}
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("reply is not a JSON object (%v): %s", err, text.Excerpt(reply, "(empty reply)"))
	}
	if dec.More() {
		return nil, fmt.Errorf("reply holds more than one JSON value: %s", text.Excerpt(reply, "(empty reply)"))
	}
	obj, ok := normalizeJSON(v).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("reply is JSON but not an object: %s", text.Excerpt(reply, "(empty reply)"))
	}
	return obj, nil
}

// normalizeJSON turns json.Number values into int64 (integers that fit) or
// float64.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, item := range x {
			x[k] = normalizeJSON(item)
		}
		return x
	case []any:
		for i, item := range x {
			x[i] = normalizeJSON(item)
		}
		return x
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		if f, err := x.Float64(); err == nil && !math.IsInf(f, 0) {
			return f
		}
		return x.String()
	}
	return v
}
