// Package fakemodel is a scripted model server for tests. It listens on
// 127.0.0.1 (net/http/httptest) and speaks the four wire APIs the coding
// agent CLIs use:
//
//   - Anthropic Messages, POST …/v1/messages, always SSE (claude);
//   - OpenAI Responses, POST …/responses, SSE (codex);
//   - OpenAI Chat Completions, POST …/chat/completions, streamed or not
//     (qwen, opencode, llm, aider, git-uwf's own llm agent);
//   - Gemini, POST …/models/M:streamGenerateContent (SSE) and
//     …:generateContent (JSON) (gemini).
//
// It also tolerates the side calls those CLIs make: HEAD/GET /api/hello,
// POST …/messages/count_tokens and GET …/models.
//
// What it answers is decided by a Responder, a function of the decoded
// Request: it can look at the prompt to see which role is asked (ByRole),
// play a queue of replies (Queue), or fail (Fail, Hang). Every request is
// recorded (Requests).
package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
)

// API names a wire protocol.
type API string

// The APIs the server speaks.
const (
	Anthropic      API = "anthropic-messages"
	Responses      API = "openai-responses"
	Chat           API = "openai-chat"
	Gemini         API = "gemini-stream"
	GeminiGenerate API = "gemini-generate"
	// Other is any request the server does not model (probes, lists…).
	Other API = "other"
)

// Request is one recorded request.
type Request struct {
	Method string
	// Path is the URL path; Query its raw query.
	Path, Query string
	Header      http.Header
	Body        []byte
	API         API
	// Model is the model the request names ("" when none).
	Model string
	// Stream is set when the client asked for a streamed answer.
	Stream bool
	// Prompt is the text of the last user message; System the system
	// prompt (both best effort, "" when the shape is unknown).
	Prompt string
	System string
	// HasTools is set when the request offers tools to the model.
	HasTools bool
}

// Reply is what the server sends for a model request.
type Reply struct {
	// Text is the assistant's answer.
	Text string
	// Status, when not 0 or 200, fails the request with that HTTP status
	// and an error body in the API's shape; Text is the error message.
	Status int
	// Hang makes the server never answer: the handler blocks until the
	// client goes away or the server is closed.
	Hang bool
}

// Responder decides the reply to a model request.
type Responder func(Request) Reply

// Server is a running fake model server.
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:41234 (no /v1).
	URL string

	srv  *httptest.Server
	done chan struct{}

	mu        sync.Mutex
	respond   Responder
	requests  []Request
	closeOnce sync.Once
}

// New starts a server on 127.0.0.1 that answers with respond. Close it
// when done.
func New(respond Responder) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemodel: listen on 127.0.0.1: %w", err)
	}
	s := &Server{respond: respond, done: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server; requests left hanging are released.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// SetResponder replaces the responder for the requests that follow.
func (s *Server) SetResponder(r Responder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = r
}

// Requests returns a copy of the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ModelRequests returns the recorded requests of the given APIs (all
// model APIs when none is given).
func (s *Server) ModelRequests(apis ...API) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.API == Other {
			continue
		}
		if len(apis) == 0 || containsAPI(apis, r.API) {
			out = append(out, r)
		}
	}
	return out
}

func containsAPI(list []API, a API) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// Summary lists the recorded requests, one "METHOD path api" a line, for
// test failure messages.
func (s *Server) Summary() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		fmt.Fprintf(&b, "%s %s (%s)", r.Method, r.Path, r.API)
		if r.Query != "" {
			fmt.Fprintf(&b, " ?%s", r.Query)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (s *Server) record(r Request) Responder {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	return s.respond
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	req.API = classify(r.Method, r.URL.Path)
	decode(&req)
	respond := s.record(req)

	if req.API == Other {
		s.serveOther(w, r)
		return
	}
	var rep Reply
	if respond != nil {
		rep = respond(req)
	}
	if rep.Hang {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		writeError(w, req.API, rep.Status, rep.Text)
		return
	}
	switch req.API {
	case Anthropic:
		writeAnthropic(w, req.Model, rep.Text)
	case Responses:
		writeResponses(w, rep.Text)
	case Chat:
		writeChat(w, req.Model, req.Stream, rep.Text)
	case Gemini:
		writeGemini(w, true, rep.Text)
	case GeminiGenerate:
		writeGemini(w, false, rep.Text)
	}
}

// serveOther answers the probes the CLIs make besides model calls.
func (s *Server) serveOther(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/api/hello"):
		w.WriteHeader(http.StatusOK)
	case strings.HasSuffix(p, "/messages/count_tokens"):
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 10})
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	default:
		http.NotFound(w, r)
	}
}

var geminiPath = regexp.MustCompile(`/models/([^/:]+):(streamGenerateContent|generateContent)$`)

func classify(method, path string) API {
	if method != http.MethodPost {
		return Other
	}
	switch {
	case strings.HasSuffix(path, "/messages"):
		return Anthropic
	case strings.HasSuffix(path, "/responses"):
		return Responses
	case strings.HasSuffix(path, "/chat/completions"):
		return Chat
	}
	if m := geminiPath.FindStringSubmatch(path); m != nil {
		if m[2] == "streamGenerateContent" {
			return Gemini
		}
		return GeminiGenerate
	}
	return Other
}

// decode fills Model, Stream, Prompt, System and HasTools from the body.
func decode(r *Request) {
	var body map[string]any
	if json.Unmarshal(r.Body, &body) != nil {
		return
	}
	r.Model, _ = body["model"].(string)
	r.Stream, _ = body["stream"].(bool)
	if t, ok := body["tools"].([]any); ok && len(t) > 0 {
		r.HasTools = true
	}
	switch r.API {
	case Anthropic:
		r.System = textOf(body["system"])
		r.Prompt = lastOf(body["messages"], "role", "user", "content")
	case Responses:
		r.System, _ = body["instructions"].(string)
		r.Prompt = lastOf(body["input"], "role", "user", "content")
	case Chat:
		r.System = lastOf(body["messages"], "role", "system", "content")
		r.Prompt = lastOf(body["messages"], "role", "user", "content")
	case Gemini, GeminiGenerate:
		r.Stream = r.API == Gemini
		if m := geminiPath.FindStringSubmatch(r.Path); m != nil {
			r.Model = m[1]
		}
		if si, ok := body["systemInstruction"].(map[string]any); ok {
			r.System = textOf(si["parts"])
		}
		r.Prompt = lastOf(body["contents"], "role", "user", "parts")
	}
}

// lastOf returns the text of field of the last element of list whose key
// equals value.
func lastOf(list any, key, value, field string) string {
	items, _ := list.([]any)
	for i := len(items) - 1; i >= 0; i-- {
		m, ok := items[i].(map[string]any)
		if ok && m[key] == value {
			return textOf(m[field])
		}
	}
	return ""
}

// textOf joins the text in a content value: a string, or a list of blocks
// or parts with a "text" field (tool results and other blocks are skipped).
func textOf(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, e := range c {
			switch b := e.(type) {
			case string:
				parts = append(parts, b)
			case map[string]any:
				if t, ok := b["text"].(string); ok {
					parts = append(parts, t)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError sends an error in the API's shape.
func writeError(w http.ResponseWriter, api API, status int, message string) {
	if message == "" {
		message = fmt.Sprintf("fakemodel: scripted failure %d", status)
	}
	var body any
	switch api {
	case Anthropic:
		kind := "api_error"
		switch status {
		case http.StatusUnauthorized:
			kind = "authentication_error"
		case http.StatusTooManyRequests:
			kind = "rate_limit_error"
		case http.StatusBadRequest:
			kind = "invalid_request_error"
		}
		body = map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": message}}
	case Gemini, GeminiGenerate:
		body = map[string]any{"error": map[string]any{"code": status, "message": message,
			"status": strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_"))}}
	default:
		body = map[string]any{"error": map[string]any{"message": message, "type": "fake_error",
			"code": fmt.Sprint(status)}}
	}
	writeJSON(w, status, body)
}

// sse writes Server-Sent Events and flushes after each.
type sse struct {
	w   http.ResponseWriter
	buf bytes.Buffer
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w}
}

// event writes one event; name may be "" for data-only events. data is
// marshalled unless it is a string.
func (e *sse) event(name string, data any) {
	e.buf.Reset()
	if name != "" {
		fmt.Fprintf(&e.buf, "event: %s\n", name)
	}
	raw, ok := data.(string)
	if !ok {
		b, _ := json.Marshal(data)
		raw = string(b)
	}
	fmt.Fprintf(&e.buf, "data: %s\n\n", raw)
	_, _ = e.w.Write(e.buf.Bytes())
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeAnthropic(w http.ResponseWriter, model, text string) {
	if model == "" {
		model = "fake-model"
	}
	e := newSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake_1", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
	e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "text_delta", "text": text}})
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

func writeResponses(w http.ResponseWriter, text string) {
	e := newSSE(w)
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_fake_1", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	e.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_fake_1"}})
	e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	e.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": "resp_fake_1", "usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}})
}

func writeChat(w http.ResponseWriter, model string, stream bool, text string) {
	if model == "" {
		model = "fake-model"
	}
	if !stream {
		writeJSON(w, http.StatusOK, map[string]any{"id": "chatcmpl-fake-1", "object": "chat.completion", "created": 0,
			"model": model, "choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": text}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
		return
	}
	e := newSSE(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-fake-1", "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	e.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	e.event("", chunk(map[string]any{"content": text}, nil))
	e.event("", chunk(map[string]any{}, "stop"))
	e.event("", map[string]any{"id": "chatcmpl-fake-1", "object": "chat.completion.chunk", "created": 0, "model": model,
		"choices": []any{}, "usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
	e.event("", "[DONE]")
}

func writeGemini(w http.ResponseWriter, stream bool, text string) {
	resp := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model",
			"parts": []any{map[string]any{"text": text}}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
	}
	if !stream {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	newSSE(w).event("", resp)
}
