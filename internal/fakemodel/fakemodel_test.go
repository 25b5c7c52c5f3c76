package fakemodel

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const plannerPrompt = "You are acting as the `planner` role of this workflow.\n\n## Task\n\nDo it."

func start(t *testing.T, r Responder) *Server {
	t.Helper()
	s, err := New(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("URL = %q, want a 127.0.0.1 address", s.URL)
	}
	return s
}

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads an SSE body into (event name, data) pairs.
func events(t *testing.T, r io.Reader) [][2]string {
	t.Helper()
	var out [][2]string
	name := ""
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			out = append(out, [2]string{name, strings.TrimPrefix(line, "data: ")})
			name = ""
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func field(t *testing.T, data string, path ...any) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatalf("data %q: %v", data, err)
	}
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func TestAnthropicMessages(t *testing.T) {
	s := start(t, ByRole(map[string]string{"planner": "---\n$status: planned\n---\nThe plan."}))
	resp := post(t, s.URL+"/v1/messages?beta=true", map[string]any{
		"model": "claude-x", "stream": true, "system": []any{map[string]any{"type": "text", "text": "sys"}},
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<system-reminder>x</system-reminder>"},
			map[string]any{"type": "text", "text": plannerPrompt}}}}})
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := events(t, resp.Body)
	var names []string
	for _, e := range evs {
		names = append(names, e[0])
	}
	want := "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	if m := field(t, evs[0][1], "message", "model"); m != "claude-x" {
		t.Errorf("message_start echoes model %v", m)
	}
	if txt := field(t, evs[2][1], "delta", "text"); txt != "---\n$status: planned\n---\nThe plan." {
		t.Errorf("delta text %q", txt)
	}
	reqs := s.ModelRequests(Anthropic)
	if len(reqs) != 1 || RoleOf(reqs[0]) != "planner" || reqs[0].System != "sys" || !reqs[0].Stream || reqs[0].Model != "claude-x" {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestResponses(t *testing.T) {
	s := start(t, Queue(Reply{Text: "first"}, Reply{Text: "second"}))
	var texts []string
	for range 3 {
		resp := post(t, s.URL+"/v1/responses", map[string]any{"model": "m", "stream": true, "instructions": "be nice",
			"input": []any{map[string]any{"type": "message", "role": "user", "content": []any{
				map[string]any{"type": "input_text", "text": "hello"}}}}})
		evs := events(t, resp.Body)
		if len(evs) < 2 || evs[len(evs)-1][0] != "response.completed" {
			t.Fatalf("events %v", evs)
		}
		for _, e := range evs {
			if e[0] == "response.output_item.done" {
				texts = append(texts, field(t, e[1], "item", "content", 0, "text").(string))
			}
		}
	}
	if got := strings.Join(texts, ","); got != "first,second,second" {
		t.Fatalf("texts %q (the queue repeats its last reply)", got)
	}
	r := s.ModelRequests()[0]
	if r.API != Responses || r.Prompt != "hello" || r.System != "be nice" {
		t.Fatalf("recorded %+v", r)
	}
}

func TestChatCompletions(t *testing.T) {
	s := start(t, ByRole(map[string]string{"planner": "the plan"}))
	msgs := []any{map[string]any{"role": "system", "content": "sys"},
		map[string]any{"role": "user", "content": plannerPrompt}}
	resp := post(t, s.URL+"/v1/chat/completions", map[string]any{"model": "m", "stream": true, "messages": msgs})
	var text strings.Builder
	evs := events(t, resp.Body)
	for _, e := range evs {
		if e[1] == "[DONE]" {
			continue
		}
		if c, ok := field(t, e[1], "choices", 0, "delta", "content").(string); ok {
			text.WriteString(c)
		}
	}
	if text.String() != "the plan" || evs[len(evs)-1][1] != "[DONE]" {
		t.Fatalf("streamed %q, events %v", text.String(), evs)
	}
	// Not streamed: one JSON object.
	resp = post(t, s.URL+"/v1/chat/completions", map[string]any{"model": "m", "messages": msgs})
	b, _ := io.ReadAll(resp.Body)
	if c := field(t, string(b), "choices", 0, "message", "content"); c != "the plan" {
		t.Fatalf("non-streamed content %v in %s", c, b)
	}
	// A request that is not a git-uwf prompt (a title, a memory call).
	resp = post(t, s.URL+"/v1/chat/completions", map[string]any{"model": "m",
		"messages": []any{map[string]any{"role": "user", "content": "Generate a title"}}})
	b, _ = io.ReadAll(resp.Body)
	if c := field(t, string(b), "choices", 0, "message", "content"); c != SideReply {
		t.Fatalf("side request answered %v", c)
	}
}

func TestGemini(t *testing.T) {
	s := start(t, ByRole(map[string]string{"planner": "the plan"}))
	body := map[string]any{"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": plannerPrompt}}}}}
	resp := post(t, s.URL+"/v1beta/models/gem-1:streamGenerateContent?alt=sse", body)
	evs := events(t, resp.Body)
	if len(evs) != 1 || field(t, evs[0][1], "candidates", 0, "content", "parts", 0, "text") != "the plan" {
		t.Fatalf("events %v", evs)
	}
	// The router's non-streamed call.
	resp = post(t, s.URL+"/v1beta/models/lite:generateContent", map[string]any{
		"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "rate the complexity"}}},
		"contents":          []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": plannerPrompt}}}}})
	b, _ := io.ReadAll(resp.Body)
	txt, _ := field(t, string(b), "candidates", 0, "content", "parts", 0, "text").(string)
	if field(t, txt, "complexity_score") != float64(10) {
		t.Fatalf("router answer %s", b)
	}
	reqs := s.ModelRequests(Gemini)
	if len(reqs) != 1 || reqs[0].Model != "gem-1" || !reqs[0].Stream || reqs[0].Query != "alt=sse" {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestSideCalls(t *testing.T) {
	s := start(t, Fail(500, "down"))
	req, _ := http.NewRequest(http.MethodHead, s.URL+"/api/hello", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("HEAD /api/hello: %d", resp.StatusCode)
	}
	resp = post(t, s.URL+"/v1/messages/count_tokens", map[string]any{"messages": []any{}})
	if resp.StatusCode != 200 {
		t.Errorf("count_tokens: %d", resp.StatusCode)
	}
	resp = post(t, s.URL+"/nowhere", map[string]any{})
	if resp.StatusCode != 404 {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}
	if got := len(s.Requests()); got != 3 || len(s.ModelRequests()) != 0 {
		t.Errorf("recorded %d requests, %d model requests:\n%s", got, len(s.ModelRequests()), s.Summary())
	}
}

func TestFailures(t *testing.T) {
	s := start(t, Fail(401, "bad key"))
	cases := []struct {
		path string
		body any
		want []any // path to the message in the error body
	}{
		{"/v1/messages", map[string]any{}, []any{"error", "message"}},
		{"/v1/responses", map[string]any{}, []any{"error", "message"}},
		{"/v1/chat/completions", map[string]any{}, []any{"error", "message"}},
		{"/v1beta/models/m:streamGenerateContent", map[string]any{}, []any{"error", "message"}},
	}
	for _, c := range cases {
		resp := post(t, s.URL+c.path, c.body)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 401 || field(t, string(b), c.want...) != "bad key" {
			t.Errorf("%s: %d %s", c.path, resp.StatusCode, b)
		}
	}
	s.SetResponder(Fail(500, ""))
	resp := post(t, s.URL+"/v1/messages", map[string]any{})
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || field(t, string(b), "type") != "error" || field(t, string(b), "error", "type") != "api_error" {
		t.Errorf("500: %d %s", resp.StatusCode, b)
	}
}

func TestHang(t *testing.T) {
	s := start(t, Hang())
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/chat/completions", strings.NewReader("{}"))
	started := time.Now()
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a hung request ended with %v, want the client's deadline", err)
	}
	if d := time.Since(started); d < 250*time.Millisecond {
		t.Fatalf("answered after %s", d)
	}
	// Close releases requests still hanging, and returns.
	go func() {
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
	}()
	time.Sleep(100 * time.Millisecond)
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked on a hanging request")
	}
}

func TestRoleOf(t *testing.T) {
	r := Request{Prompt: "x"}
	if RoleOf(r) != "" {
		t.Fatal("no role expected")
	}
	r.Body = []byte(`{"m":"You are acting as the ` + "`a`" + ` role … You are acting as the ` + "`b`" + ` role"}`)
	if got := RoleOf(r); got != "b" {
		t.Fatalf("RoleOf from the body = %q, want the last role named", got)
	}
	r.Prompt = plannerPrompt
	if got := RoleOf(r); got != "planner" {
		t.Fatalf("RoleOf = %q", got)
	}
	if IsCorrection(r) {
		t.Fatal("not a correction")
	}
	r.Prompt = correctionMarker + ": its YAML"
	if !IsCorrection(r) {
		t.Fatal("a correction")
	}
}
