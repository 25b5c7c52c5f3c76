package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdtest"
	"github.com/git-uwf/git-uwf/internal/steplog"
	"github.com/git-uwf/git-uwf/web"
)

func newServer(t testing.TB, dir string, opts web.Options) *httptest.Server {
	t.Helper()
	srv, err := web.New(chaintest.Open(t, dir), opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}

func TestPages(t *testing.T) {
	f := newFixture(t)
	ts := newServer(t, f.dir, web.Options{PageSize: 2})
	tests := []struct {
		name    string
		method  string
		path    string
		host    string
		status  int
		want    []string
		notWant []string
	}{
		{name: "list page 1", path: "/", status: 200,
			want:    []string{"4 threads, page 1 of 2", f.idle, f.suspended, `rel="next" href="/?page=2"`},
			notWant: []string{f.looped, f.fork}},
		{name: "list page 2", path: "/?page=2", status: 200, want: []string{f.fork, f.looped, "completed", `rel="prev"`,
			`<td class="fork">of <a href="/t/` + f.looped + `"`, `<td class="fork"><span title="other threads were forked from this one">forked</span>`}},
		{name: "fork column, page 1", path: "/", status: 200, want: []string{`<td class="fork">–</td>`}, notWant: []string{`<td class="fork">of`, "forked</span>"}},
		{name: "filter status", path: "/?status=completed", status: 200, want: []string{"1 thread<", f.looped}, notWant: []string{f.idle}},
		{name: "filter active", path: "/?status=active", status: 200, want: []string{"3 threads, page 1 of 2", f.idle, f.suspended}},
		{name: "filter suspended", path: "/?status=suspended", status: 200,
			want: []string{"1 thread<", f.suspended, "(reviewer)"}, notWant: []string{f.idle, f.fork, f.looped}},
		{name: "filter workflow", path: "/?workflow=nope", status: 200, want: []string{"0 threads", "No threads match"}},
		{name: "branch column", path: "/", status: 200,
			want: []string{`<td class="branch"><a href="/?branch=feature%2fidle"`, `<option value="feature/idle">`, `<option value="main">`}},
		{name: "filter branch", path: "/?branch=feature%2Fidle", status: 200,
			want: []string{"1 thread<", f.idle, `value="feature/idle" placeholder`}, notWant: []string{f.looped, f.fork}},
		{name: "filter branch, page 1", path: "/?branch=main", status: 200,
			want: []string{"3 threads, page 1 of 2", f.suspended, f.fork, `rel="next" href="/?branch=main&amp;page=2"`},
			// The fork's row names looped, its origin; looped's own row is on page 2.
			notWant: []string{f.idle, `data-thread="` + f.looped + `"`}},
		{name: "filter branch, page 2", path: "/?branch=main&page=2", status: 200,
			want: []string{"3 threads, page 2 of 2", f.looped}, notWant: []string{f.idle, f.fork, f.suspended}},
		{name: "filter branch and status", path: "/?branch=main&status=completed", status: 200,
			want: []string{"1 thread<", f.looped}, notWant: []string{f.idle, f.fork}},
		{name: "filter unknown branch", path: "/?branch=nope", status: 200, want: []string{"0 threads", "No threads match"}},
		{name: "search", path: "/?q=IDLE+task", status: 200, want: []string{"1 thread<", f.idle}, notWant: []string{f.looped}},
		{name: "bad status", path: "/?status=bogus", status: 400, want: []string{"unknown status"}},
		{name: "thread", path: "/t/" + f.looped, status: 200,
			want: []string{"completed", "#4 reviewer", "Looks good.", "<svg", `data-node="developer"`, "developer ×2",
				"fork <a href=\"/t/" + f.fork, "Add a &lt;b&gt;flag&lt;/b&gt;", "<!-- raw HTML omitted -->",
				`<a href="https://example.com/">safe link</a>`, "click me"},
			notWant: []string{"<script>window", "javascript:", "onerror", "<b>flag"}},
		{name: "thread by prefix", path: "/t/" + f.looped[:10], status: 200, want: []string{f.looped}},
		{name: "suspended thread", path: "/t/" + f.suspended, status: 200,
			want: []string{"suspended", "suspended at", "which flag name?", `data-node="$SUSPEND"`}},
		{name: "fork shows its parent", path: "/t/" + f.fork, status: 200, want: []string{"forked from", f.looped, "parent"}},
		{name: "thread shows its branch", path: "/t/" + f.idle, status: 200,
			want: []string{`<td id="branch"><a href="/?branch=feature%2fidle"`}},
		{name: "unknown thread", path: "/t/7ZZZZZZZZZ", status: 404, want: []string{"unknown thread"}},
		{name: "step", path: "/t/" + f.looped + "/step/1", status: 200,
			want:    []string{"Step 1: developer", "review_needed", "&lt;script&gt;window.pwned=", "show the prompt", "Implement it."},
			notWant: []string{"<script>window", `id="prompt"`}},
		{name: "step prompt on demand", path: "/t/" + f.looped + "/step/1?prompt=1", status: 200, want: []string{`id="prompt"`, "## Role"}},
		{name: "step out of range", path: "/t/" + f.looped + "/step/9", status: 404, want: []string{"has no step"}},
		{name: "asset", path: "/assets/app.js", status: 200, want: []string{"EventSource"}},
		{name: "head", method: http.MethodHead, path: "/", status: 200},
		{name: "post refused", method: http.MethodPost, path: "/", status: 405},
		{name: "put refused", method: http.MethodPut, path: "/t/" + f.looped, status: 405},
		{name: "delete refused", method: http.MethodDelete, path: "/assets/app.js", status: 405},
		{name: "foreign host refused", path: "/", host: "attacker.example", status: 421},
		{name: "localhost accepted", path: "/", host: "localhost:1234", status: 200},
		{name: "unknown path", path: "/nope", status: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			req, err := http.NewRequest(method, ts.URL+tt.path, strings.NewReader(""))
			if err != nil {
				t.Fatal(err)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			res, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d\n%s", res.StatusCode, tt.status, body)
			}
			if csp := res.Header.Get("Content-Security-Policy"); csp != web.ContentSecurityPolicy {
				t.Errorf("CSP = %q", csp)
			}
			if tt.status == 405 && res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow = %q", res.Header.Get("Allow"))
			}
			for _, w := range tt.want {
				if !strings.Contains(string(body), w) {
					t.Errorf("body lacks %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(string(body), w) {
					t.Errorf("body contains %q", w)
				}
			}
		})
	}
}

// event reads the next server-sent event of the given name.
func nextEvent(t *testing.T, r *bufio.Reader, name string) string {
	t.Helper()
	event := ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("waiting for %q: %v", name, err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == name:
			return strings.TrimPrefix(line, "data: ")
		}
	}
}

// TestEvents follows a thread's event stream: a step log being written
// arrives as "log" events, a new step's log as "logreset", and a moved ref
// as "refs".
func TestEvents(t *testing.T) {
	f := newFixture(t)
	repo := chaintest.Open(t, f.dir)
	ts := newServer(t, f.dir, web.Options{Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/events?t="+f.idle, nil)
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	r := bufio.NewReader(res.Body)

	log, err := steplog.Create(repo.UwfDir(), f.idle, "== step 1: developer")
	if err != nil {
		t.Fatal(err)
	}
	if got := nextEvent(t, r, "log"); !strings.Contains(got, "== step 1: developer") {
		t.Errorf("first log event %s", got)
	}
	io.WriteString(log, "<b>working</b>\n")
	log.Close()
	if got := nextEvent(t, r, "log"); got != `"\u003cb\u003eworking\u003c/b\u003e\n"` {
		t.Errorf("log event %s", got)
	}
	next, err := steplog.Create(repo.UwfDir(), f.idle, "== step 2")
	if err != nil {
		t.Fatal(err)
	}
	next.Close()
	nextEvent(t, r, "logreset")
	if got := nextEvent(t, r, "log"); !strings.Contains(got, "== step 2") {
		t.Errorf("log after reset %s", got)
	}

	cmdtest.MustRun(t, f.dir, time.Time{}, "thread", "cancel", f.idle, "--reason", "enough")
	nextEvent(t, r, "refs")
}

func TestEventsRejectsBadThread(t *testing.T) {
	f := newFixture(t)
	ts := newServer(t, f.dir, web.Options{})
	res, err := ts.Client().Get(ts.URL + "/events?t=../../etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", res.StatusCode)
	}
}

// TestEventsKeepMultibyteCharacters: a log larger than one 64 KiB chunk,
// with characters of two, three and four bytes straddling the chunk
// boundaries, arrives as log events that join to exactly what was written
// (no U+FFFD from a character cut in two).
func TestEventsKeepMultibyteCharacters(t *testing.T) {
	f := newFixture(t)
	repo := chaintest.Open(t, f.dir)
	ts := newServer(t, f.dir, web.Options{Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/events?t="+f.idle, nil)
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)

	// 65535 bytes, then a 4-byte character across the first boundary;
	// the second boundary falls one byte into a 3-byte character.
	content := strings.Repeat("a", 65535) + "😀" + strings.Repeat("€", 30000) + strings.Repeat("é", 40000) + "end\n"
	log, err := steplog.Create(repo.UwfDir(), f.idle, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(log, content); err != nil {
		t.Fatal(err)
	}
	log.Close()
	var got strings.Builder
	for got.Len() < len(content) {
		var chunk string
		if err := json.Unmarshal([]byte(nextEvent(t, r, "log")), &chunk); err != nil {
			t.Fatal(err)
		}
		got.WriteString(chunk)
	}
	if got.String() != content {
		t.Errorf("log events joined differ from the log: %d bytes, %d replacement characters",
			got.Len(), strings.Count(got.String(), "\uFFFD"))
	}
}
