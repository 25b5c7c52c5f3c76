package agentkit

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeLLM serves one canned chat completion answer and records the request.
type fakeLLM struct {
	status int
	body   string
	delay  time.Duration
	got    chan *http.Request
	gotRaw chan []byte
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.got <- r
	f.gotRaw <- raw
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = io.WriteString(w, f.body)
}

func newFakeLLM(t *testing.T, status int, body string, delay time.Duration) (*fakeLLM, LLMEndpoint) {
	t.Helper()
	f := &fakeLLM{status: status, body: body, delay: delay, got: make(chan *http.Request, 1), gotRaw: make(chan []byte, 1)}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, LLMEndpoint{BaseURL: srv.URL + "/v1/", APIKey: "sk-test-KEY123", Model: "test-model", Timeout: 5 * time.Second, Program: LLMProgram}
}

func completion(content string) string {
	out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
	return string(out)
}

func TestChatComplete(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		delay   time.Duration
		timeout time.Duration
		want    string
		wantErr []string
	}{
		{name: "ok", status: 200, body: completion("Hello there."), want: "Hello there."},
		{name: "unauthorized", status: 401, body: `{"error":{"message":"invalid api key"}}`, wantErr: []string{"HTTP 401", "invalid api key"}},
		{name: "server error", status: 500, body: strings.Repeat("upstream failure ", 100), wantErr: []string{"HTTP 500", "upstream failure"}},
		{name: "garbage", status: 200, body: "<html>not json</html>", wantErr: []string{"unreadable body", "<html>"}},
		{name: "no choices", status: 200, body: `{"choices":[]}`, wantErr: []string{"no message content"}},
		{name: "error in 200", status: 200, body: `{"error":{"message":"model overloaded"}}`, wantErr: []string{"model overloaded"}},
		{name: "timeout", status: 200, body: completion("late"), delay: 2 * time.Second, timeout: 100 * time.Millisecond, wantErr: []string{"deadline exceeded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ep := newFakeLLM(t, tt.status, tt.body, tt.delay)
			if tt.timeout > 0 {
				ep.Timeout = tt.timeout
			}
			start := time.Now()
			got, err := ChatComplete(t.Context(), ep, "be brief", "say hello")
			if time.Since(start) > time.Second+tt.timeout {
				t.Errorf("took %v", time.Since(start))
			}
			r, raw := <-f.got, <-f.gotRaw
			if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
				t.Errorf("request %s %s", r.Method, r.URL.Path)
			}
			if h := r.Header.Get("Authorization"); h != "Bearer sk-test-KEY123" {
				t.Errorf("Authorization = %q", h)
			}
			var req map[string]any
			if err := json.Unmarshal(raw, &req); err != nil {
				t.Fatal(err)
			}
			wantReq := map[string]any{"model": "test-model", "messages": []any{
				map[string]any{"role": "system", "content": "be brief"},
				map[string]any{"role": "user", "content": "say hello"},
			}}
			if !reflect.DeepEqual(req, wantReq) {
				t.Errorf("request body = %v", req)
			}
			if tt.wantErr == nil {
				if err != nil || got != tt.want {
					t.Errorf("ChatComplete = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, got %q", got)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), ep.APIKey) {
				t.Errorf("error leaks the API key: %v", err)
			}
			if len(err.Error()) > 600 {
				t.Errorf("error is %d bytes long", len(err.Error()))
			}
		})
	}
}

func TestChatCompleteConfig(t *testing.T) {
	tests := []struct {
		name string
		ep   LLMEndpoint
	}{
		{"no base URL", LLMEndpoint{Model: "m"}},
		{"no model", LLMEndpoint{BaseURL: "http://127.0.0.1:1"}},
		{"unreachable", LLMEndpoint{BaseURL: "http://127.0.0.1:1", Model: "m", Timeout: time.Second, Program: LLMProgram}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ChatComplete(t.Context(), tt.ep, "", "hi"); err == nil {
				t.Error("no error")
			}
		})
	}
}

// TestChatCompleteProgram: a request whose program (git-uwf-llm) is not
// given or not installed fails with an error that names the program and
// how to install it, and one cancelled while the program waits for the
// model ends with the cancellation.
func TestChatCompleteProgram(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "git-uwf-llm")
	for _, program := range []string{"", missing} {
		ep := LLMEndpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Program: program}
		_, err := ChatComplete(t.Context(), ep, "", "hi")
		if err == nil {
			t.Fatalf("program %q: no error", program)
		}
		want := "not installed at " + program
		if program == "" {
			want = "no path to it was given"
		}
		for _, w := range []string{"git-uwf-llm", want, "make install"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("program %q: error %q does not say %q", program, err, w)
			}
		}
	}

	f, ep := newFakeLLM(t, 200, completion("late"), time.Minute)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-f.got // the program has sent the request
		cancel()
	}()
	_, err := ChatComplete(ctx, ep, "", "hi")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

func TestLLMExtract(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"$status": map[string]any{"enum": []any{"ready", "blocked"}},
			"count":   map[string]any{"type": "integer"},
			"ratio":   map[string]any{"type": "number"},
		},
	}
	tests := []struct {
		name    string
		reply   string
		want    map[string]any
		wantErr string
	}{
		{"plain", `{"$status":"ready","count":3,"ratio":0.5,"extra":true}`, map[string]any{"$status": "ready", "count": int64(3), "ratio": 0.5}, ""},
		{"json fence", "```json\n{\"$status\": \"blocked\"}\n```", map[string]any{"$status": "blocked"}, ""},
		{"bare fence", "```\n{\"count\": 1}\n```", map[string]any{"count": int64(1)}, ""},
		{"prose around", "Here you go: {\"count\": 2} hope it helps", map[string]any{"count": int64(2)}, ""},
		{"not json", "I could not do it.", nil, "not a JSON object"},
		{"array", `[1, 2]`, nil, "not an object"},
		{"two objects", `{"count":1} {"count":2}`, nil, "more than one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ep := newFakeLLM(t, 200, completion(tt.reply), 0)
			got, err := LLMExtract(t.Context(), ep, schema, "---\nbroken: [\n---\nI am ready.")
			_, raw := <-f.got, <-f.gotRaw
			var req struct {
				Messages []struct {
					Role, Content string
				}
				ResponseFormat struct {
					Type string
				} `json:"response_format"`
			}
			if err := json.Unmarshal(raw, &req); err != nil {
				t.Fatal(err)
			}
			if req.ResponseFormat.Type != "json_object" || len(req.Messages) != 2 ||
				!strings.Contains(req.Messages[0].Content, `"$status"`) || req.Messages[1].Content != "---\nbroken: [\n---\nI am ready." {
				t.Errorf("request = %+v", req)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("LLMExtract = %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}

	_, ep := newFakeLLM(t, 401, `{"error":{"message":"bad key"}}`, 0)
	if _, err := LLMExtract(t.Context(), ep, schema, "x"); err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Errorf("401: error = %v", err)
	}
	if _, err := LLMExtract(t.Context(), ep, map[string]any{"bad": func() {}}, "x"); err == nil {
		t.Error("unencodable schema accepted")
	} else if errors.Is(err, ErrOutputTooLarge) {
		t.Error("wrong error kind")
	}
}

func FuzzParseJSONObject(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n{\"a\": [1.5, 1e400, 12345678901234567890]}\n```", "x { y", "```", `{"a":1}{`, "}{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		obj, err := parseJSONObject(reply)
		if err != nil {
			return
		}
		if obj == nil {
			t.Fatal("nil object without error")
		}
		checkJSONValue(t, obj)
	})
}
