package main_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/internal/llmwire"
	"github.com/git-uwf/git-uwf/internal/llmwire/llmwiretest"
)

// program is git-uwf-llm, built once for the tests.
var program string

func TestMain(m *testing.M) {
	os.Exit(llmwiretest.RunTests(m, &program))
}

// TestChat sends chat completion requests through the program to a fake
// model server: the request the server sees, the key as a bearer token,
// the reply, and the server's failures as errors (a body that never ends
// is cut at llmwire.MaxResponse).
func TestChat(t *testing.T) {
	type seen struct {
		auth, body string
	}
	tests := []struct {
		name    string
		key     string
		format  string
		answer  func(w http.ResponseWriter)
		want    string
		wantErr []string
	}{
		{name: "answer", key: "sk-KEY-1", answer: func(w http.ResponseWriter) {
			io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"Hi <there> & \u0001"}}]}`)
		}, want: "Hi <there> & \x01"},
		{name: "json format, no key", format: "json_object", answer: func(w http.ResponseWriter) {
			io.WriteString(w, `{"choices":[{"message":{"content":"{}"}}]}`)
		}, want: "{}"},
		{name: "refused", key: "sk-KEY-2", answer: func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"invalid api key"}}`)
		}, wantErr: []string{"chat completion http://", "HTTP 401 Unauthorized", "invalid api key"}},
		{name: "endless body", answer: func(w http.ResponseWriter) {
			chunk := bytes.Repeat([]byte("x"), 1<<20)
			for range 1 << 10 { // 1 GiB, unless the reader stops first
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, wantErr: []string{"response larger than", fmt.Sprint(llmwire.MaxResponse)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan seen, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
					http.NotFound(w, r)
					return
				}
				got <- seen{r.Header.Get("Authorization"), string(body)}
				tt.answer(w)
			}))
			defer srv.Close()
			req := llmwire.Request{Op: llmwire.OpChat, BaseURL: srv.URL + "/v1/", Model: "tiny", System: "be brief",
				User: "say hi", ResponseFormat: tt.format, Timeout: time.Minute}
			reply, err := llmwire.Run(t.Context(), program, req, tt.key)
			s := <-got
			wantAuth := ""
			if tt.key != "" {
				wantAuth = "Bearer " + tt.key
			}
			if s.auth != wantAuth {
				t.Errorf("Authorization %q, want %q", s.auth, wantAuth)
			}
			wantBody := `{"model":"tiny","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"say hi"}]`
			if tt.format != "" {
				wantBody += `,"response_format":{"type":"` + tt.format + `"}`
			}
			if s.body != wantBody+"}" {
				t.Errorf("request body %s", s.body)
			}
			if tt.wantErr == nil {
				if err != nil || reply.Content != tt.want {
					t.Errorf("reply %+v, %v; want content %q", reply, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("reply %+v, want an error", reply)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if tt.key != "" && strings.Contains(err.Error(), tt.key) {
				t.Errorf("error leaks the API key: %v", err)
			}
		})
	}
}

// TestProbe: any HTTP answer is reachable (a redirect is not followed); a
// closed port and a server that does not answer in time are not, and say
// why.
func TestProbe(t *testing.T) {
	answering := httptest.NewServer(http.RedirectHandler("http://127.0.0.1:1/", http.StatusFound))
	defer answering.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	tests := []struct {
		url, wantWhy string
		timeout      time.Duration
		want         bool
	}{
		{url: answering.URL, want: true, timeout: 10 * time.Second},
		{url: closed.URL, wantWhy: "refused", timeout: 10 * time.Second},
		{url: "http://" + silent.Addr().String(), wantWhy: "no answer in 200ms", timeout: 200 * time.Millisecond},
	}
	for _, tt := range tests {
		reply, err := llmwire.Run(t.Context(), program, llmwire.Request{Op: llmwire.OpProbe, URL: tt.url, Timeout: tt.timeout}, "")
		if err != nil || reply.Reachable != tt.want || !strings.Contains(reply.Unreachable, tt.wantWhy) || tt.want && reply.Unreachable != "" {
			t.Errorf("probe %s = %+v, %v; want reachable %v (%q)", tt.url, reply, err, tt.want, tt.wantWhy)
		}
	}
}

// TestNotARequest: run by hand, with arguments or without a request on
// stdin, the program says what it is for and exits 2.
func TestNotARequest(t *testing.T) {
	tests := []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"--help"}, "", "git-uwf runs this program"},
		{nil, "", "git-uwf runs this program"},
		{nil, "hello", "this is not one: hello"},
		{nil, `{"op":"chat","apiKey":"x"}`, "this is not one"},
		{nil, `{"op":"delete"}`, `unknown operation "delete"`},
	}
	for _, tt := range tests {
		cmd := exec.Command(program, tt.args...)
		cmd.Stdin = strings.NewReader(tt.stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%q with stdin %q: exit %d (%v), stdout %q, stderr %q; want exit 2 and %q", tt.args, tt.stdin, code, err, stdout.String(), stderr.String(), tt.want)
		}
	}
}
