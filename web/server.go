// Package web is `git uwf serve`: a read-only viewer of a repository's
// threads and workflows, linked into git-uwf-serve only. Templates, the stylesheet
// and the one script are embedded with go:embed; nothing is fetched from
// elsewhere. Every page is a GET; any other method gets 405. Everything an
// agent produced is untrusted: html/template escapes it, markdown is
// rendered without raw HTML and with unsafe link schemes dropped, and a
// strict Content-Security-Policy forbids inline script, inline style and
// any other origin. Pages follow the refs through server-sent events (see
// events.go) and show a running step's log as it grows.
package web

import (
	"context"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/text"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// ContentSecurityPolicy is sent with every response: scripts, styles,
// images and connections from this origin only; no inline code, no plugins,
// no framing, no form posts.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Options configure a Server.
type Options struct {
	// Now is the clock (for "3m ago").
	Now func() time.Time
	// PageSize is how many threads the list shows per page (default 50).
	PageSize int
	// Poll is how often open pages look at the refs (default 1s).
	Poll time.Duration
	// AllowedHosts are the Host header values accepted besides loopback
	// names (the listen address when bound elsewhere). Requests naming
	// another host are refused, so a web page elsewhere cannot reach the
	// viewer through DNS rebinding.
	AllowedHosts []string
	// AnyHost accepts every Host header: for a viewer deliberately bound
	// to a non-loopback address.
	AnyHost bool
}

// Server serves one repository.
type Server struct {
	repo *chain.Repo
	opts Options
	md   goldmark.Markdown
	tmpl map[string]*template.Template
	// mu serializes reads of the repository: chain.Repo's caches are
	// built for one command at a time.
	mu sync.Mutex
}

// New returns a Server over repo.
func New(repo *chain.Repo, opts Options) (*Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 50
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	s := &Server{repo: repo, opts: opts, md: newMarkdown(), tmpl: map[string]*template.Template{}}
	funcs := template.FuncMap{
		"markdown": func(src string) template.HTML { return renderMarkdown(s.md, src) },
		"ago":      func(t time.Time) string { return chain.FormatAgo(s.opts.Now(), t) },
		"stamp":    func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"short":    func(s string) string { return text.Clip(s, 12) },
		"inc":      func(n int) int { return n + 1 },
		"dec":      func(n int) int { return n - 1 },
		"firstLine": func(s string, n int) string {
			line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
			return text.Clip(line, n)
		},
	}
	for _, page := range []string{"list", "thread", "step", "error"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+page+".html")
		if err != nil {
			return nil, fmt.Errorf("web: parse %s template: %w", page, err)
		}
		s.tmpl[page] = t
	}
	return s, nil
}

// Handler returns the viewer's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assetFS, "assets")
	mux.Handle("/assets/", http.StripPrefix("/assets/", http.FileServer(http.FS(static))))
	mux.HandleFunc("/{$}", s.handleList)
	mux.HandleFunc("/t/{id}", s.handleThread)
	mux.HandleFunc("/t/{id}/step/{n}", s.handleStep)
	mux.HandleFunc("/events", s.handleEvents)
	return s.guard(mux)
}

// guard applies what holds for every request: GET and HEAD only, a known
// Host, and the security headers.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "405 method not allowed: the viewer is read-only", http.StatusMethodNotAllowed)
			return
		}
		if !s.hostAllowed(r.Host) {
			http.Error(w, "421 unknown host: the viewer answers to localhost only", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed accepts loopback names and addresses and the configured
// hosts.
func (s *Server) hostAllowed(hostport string) bool {
	if s.opts.AnyHost {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range s.opts.AllowedHosts {
		if strings.EqualFold(a, host) || strings.EqualFold(a, hostport) {
			return true
		}
	}
	return false
}

// render executes a page template; a failure is logged into the response
// as a plain error (the page may be half written).
func (s *Server) render(w http.ResponseWriter, page string, status int, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := s.tmpl[page].Execute(w, data); err != nil {
		fmt.Fprintf(w, "\n<!-- template error: %s -->", template.HTMLEscapeString(err.Error()))
	}
}

func (s *Server) fail(w http.ResponseWriter, status int, err error) {
	s.render(w, "error", status, map[string]any{"Title": http.StatusText(status), "Status": status, "Error": err.Error(), "Events": ""})
}

// locked runs fn with the repository to itself.
func (s *Server) locked(ctx context.Context, fn func(context.Context, *chain.Repo) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fn(ctx, s.repo)
}
