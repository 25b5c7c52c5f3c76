package builtins_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

type llmRequest struct {
	auth, model, user string
}

// llmServer is a fake OpenAI-compatible endpoint answering with replies in
// order (the last one repeats).
type llmServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []llmRequest
}

func (s *llmServer) requests() []llmRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llmRequest(nil), s.reqs...)
}

func fakeLLM(t *testing.T, replies []string) *llmServer {
	t.Helper()
	s := &llmServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var body struct {
			Model    string `json:"model"`
			Messages []struct {
				Role, Content string
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req := llmRequest{auth: r.Header.Get("Authorization"), model: body.Model}
		for _, m := range body.Messages {
			if m.Role == "user" {
				req.user = m.Content
			}
		}
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		reply := replies[min(n, len(replies)-1)]
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": reply}}}})
	}))
	t.Cleanup(s.Close)
	return s
}
