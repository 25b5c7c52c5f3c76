package agentkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/git-uwf/git-uwf/internal/text"
	"io"
	"math"
	"net/http"
	neturl "net/url"
	"strings"
	"time"
)

// maxLLMResponse caps the size of a chat completion response body.
const maxLLMResponse = 8 << 20

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
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type string `json:"type"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// ChatComplete sends one non-streaming chat completion request with an
// optional system message and a user message, and returns the content of the
// first choice. Errors name the HTTP status and quote the start of the
// response body; the API key never appears in them.
func ChatComplete(ctx context.Context, ep LLMEndpoint, system, user string) (string, error) {
	return chatComplete(ctx, ep, system, user, nil)
}

func chatComplete(ctx context.Context, ep LLMEndpoint, system, user string, format *responseFormat) (string, error) {
	if ep.BaseURL == "" {
		return "", errors.New("chat completion: no base URL configured")
	}
	if ep.Model == "" {
		return "", errors.New("chat completion: no model configured")
	}
	if ep.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ep.Timeout)
		defer cancel()
	}
	req := chatRequest{Model: ep.Model, ResponseFormat: format}
	if system != "" {
		req.Messages = append(req.Messages, chatMessage{Role: "system", Content: system})
	}
	req.Messages = append(req.Messages, chatMessage{Role: "user", Content: user})
	payload, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("chat completion: encode request: %w", err)
	}
	endpoint := strings.TrimRight(ep.BaseURL, "/") + "/chat/completions"
	url := endpoint // for messages, without any password in the URL
	if u, err := neturl.Parse(endpoint); err == nil {
		url = u.Redacted()
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return "", fmt.Errorf("chat completion: build request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if ep.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+ep.APIKey)
	}
	client := &http.Client{}
	resp, err := client.Do(hreq)
	if err != nil {
		return "", fmt.Errorf("chat completion %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxLLMResponse+1))
	if err != nil {
		return "", fmt.Errorf("chat completion %s: read response: %w", url, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("chat completion %s: HTTP %s: %s", url, resp.Status, excerpt(body))
	}
	if len(body) > maxLLMResponse {
		return "", fmt.Errorf("chat completion %s: response larger than %d bytes", url, maxLLMResponse)
	}
	var cr chatResponse
	if err := json.Unmarshal(body, &cr); err != nil {
		return "", fmt.Errorf("chat completion %s: HTTP %d with an unreadable body (%v): %s", url, resp.StatusCode, err, excerpt(body))
	}
	if cr.Error != nil && cr.Error.Message != "" {
		return "", fmt.Errorf("chat completion %s: HTTP %d: error from server: %s", url, resp.StatusCode, text.ClipBytes(cr.Error.Message, 300))
	}
	if len(cr.Choices) == 0 || cr.Choices[0].Message.Content == nil {
		return "", fmt.Errorf("chat completion %s: HTTP %d: no message content in response: %s", url, resp.StatusCode, excerpt(body))
	}
	return *cr.Choices[0].Message.Content, nil
}

// excerpt returns the start of an HTTP body as one short line.
func excerpt(body []byte) string {
	s := text.OneLine(strings.ToValidUTF8(string(body), "\uFFFD"))
	if s == "" {
		return "(empty body)"
	}
	return text.ClipBytes(s, 200)
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
	reply, err := chatComplete(ctx, ep, system, agentText, &responseFormat{Type: "json_object"})
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
		return nil, fmt.Errorf("reply is not a JSON object (%v): %s", err, excerpt([]byte(reply)))
	}
	if dec.More() {
		return nil, fmt.Errorf("reply holds more than one JSON value: %s", excerpt([]byte(reply)))
	}
	obj, ok := normalizeJSON(v).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("reply is JSON but not an object: %s", excerpt([]byte(reply)))
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
