// Package llmhttp is the HTTP side of git-uwf-llm (cmd/git-uwf-llm): an
// OpenAI-compatible chat completion request and the reachability probe of
// `agent doctor`, carried out for a request of package llmwire. git-uwf
// must not import it: it is what keeps net/http, crypto/tls and
// crypto/x509 out of that binary.
package llmhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"

	"github.com/git-uwf/git-uwf/internal/llmwire"
	"github.com/git-uwf/git-uwf/internal/text"
)

// maxRequest caps the request read from stdin. Its messages hold an
// agent's prompt or answer (an answer may be agentkit.DefaultMaxOutput,
// 64 MiB, and grows when escaped as JSON), so the cap is only against a
// runaway writer.
const maxRequest = 1 << 30

// Serve carries out the llmwire.Request read from stdin, with the API key
// from getenv(llmwire.EnvAPIKey), and writes the llmwire.Reply to stdout.
// It returns the program's exit status: 0 with a reply, 1 with the error
// written to stderr, 2 for a request that is not one.
func Serve(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	raw, err := io.ReadAll(io.LimitReader(stdin, maxRequest+1))
	if err != nil {
		fmt.Fprintf(stderr, "%s: read the request: %v\n", llmwire.Program, err)
		return 2
	}
	if len(raw) > maxRequest {
		fmt.Fprintf(stderr, "%s: the request is larger than %d bytes\n", llmwire.Program, maxRequest)
		return 2
	}
	var req llmwire.Request
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || dec.More() {
		fmt.Fprintf(stderr, "%s: git-uwf runs this program to send its requests to model servers; "+
			"it reads one request as JSON on stdin, and this is not one: %s\n", llmwire.Program, text.Excerpt(string(raw), "(nothing)"))
		return 2
	}
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	var reply llmwire.Reply
	switch req.Op {
	case llmwire.OpChat:
		reply.Content, err = Chat(ctx, req, getenv(llmwire.EnvAPIKey))
	case llmwire.OpProbe:
		reply.Reachable, reply.Unreachable = Probe(ctx, req.URL)
		if !reply.Reachable && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reply.Unreachable = fmt.Sprintf("no answer in %s", req.Timeout)
		}
	default:
		fmt.Fprintf(stderr, "%s: unknown operation %q (want %q or %q)\n", llmwire.Program, req.Op, llmwire.OpChat, llmwire.OpProbe)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(reply); err != nil {
		fmt.Fprintf(stderr, "%s: write the reply: %v\n", llmwire.Program, err)
		return 2
	}
	return 0
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

// Chat sends one non-streaming chat completion request with req's optional
// system message and its user message, apiKey (when not empty) as a
// bearer token, and returns the content of the first choice. Errors name
// the HTTP status and quote the start of the response body; the API key
// never appears in them. The body read is capped at llmwire.MaxResponse.
func Chat(ctx context.Context, req llmwire.Request, apiKey string) (string, error) {
	if req.BaseURL == "" {
		return "", errors.New("chat completion: no base URL configured")
	}
	if req.Model == "" {
		return "", errors.New("chat completion: no model configured")
	}
	cr := chatRequest{Model: req.Model}
	if req.ResponseFormat != "" {
		cr.ResponseFormat = &responseFormat{Type: req.ResponseFormat}
	}
	if req.System != "" {
		cr.Messages = append(cr.Messages, chatMessage{Role: "system", Content: req.System})
	}
	cr.Messages = append(cr.Messages, chatMessage{Role: "user", Content: req.User})
	payload, err := json.Marshal(cr)
	if err != nil {
		return "", fmt.Errorf("chat completion: encode request: %w", err)
	}
	endpoint, url := llmwire.ChatEndpoint(req.BaseURL)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return "", fmt.Errorf("chat completion: build request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := (&http.Client{}).Do(hreq)
	if err != nil {
		return "", fmt.Errorf("chat completion %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, llmwire.MaxResponse+1))
	if err != nil {
		return "", fmt.Errorf("chat completion %s: read response: %w", url, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("chat completion %s: HTTP %s: %s", url, resp.Status, text.Excerpt(string(body), "(empty body)"))
	}
	if len(body) > llmwire.MaxResponse {
		return "", fmt.Errorf("chat completion %s: response larger than %d bytes", url, llmwire.MaxResponse)
	}
	var res chatResponse
	if err := json.Unmarshal(body, &res); err != nil {
		return "", fmt.Errorf("chat completion %s: HTTP %d with an unreadable body (%v): %s", url, resp.StatusCode, err, text.Excerpt(string(body), "(empty body)"))
	}
	if res.Error != nil && res.Error.Message != "" {
		return "", fmt.Errorf("chat completion %s: HTTP %d: error from server: %s", url, resp.StatusCode, text.ClipBytes(res.Error.Message, 300))
	}
	if len(res.Choices) == 0 || res.Choices[0].Message.Content == nil {
		return "", fmt.Errorf("chat completion %s: HTTP %d: no message content in response: %s", url, resp.StatusCode, text.Excerpt(string(body), "(empty body)"))
	}
	return *res.Choices[0].Message.Content, nil
}

// Probe sends GET url, following no redirect; any HTTP answer counts as
// reachable. Otherwise why says what went wrong.
func Probe(ctx context.Context, url string) (reachable bool, why string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err.Error()
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		if ue, ok := errors.AsType[*neturl.Error](err); ok {
			err = ue.Err
		}
		return false, err.Error()
	}
	resp.Body.Close()
	return true, ""
}
