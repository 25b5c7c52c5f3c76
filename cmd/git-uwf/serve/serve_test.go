package serve_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdtest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/serve"
)

// TestRun serves a real repository on a free loopback port, answers GET,
// refuses POST, and stops when its context ends.
func TestRun(t *testing.T) {
	dir := chaintest.InitRepo(t)
	ios, _, _, errOut := iostreams.Test()
	f := cmdutil.NewFactory(ios)
	f.Getwd = func() (string, error) { return dir, nil }
	f.Repo = cmdutil.OpenRepoOnce(f)
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve.Run(ctx, f, serve.Options{Addr: "127.0.0.1:0", Ready: func(u string) { urls <- u }})
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatalf("serve ended: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not start")
	}
	tests := []struct {
		method string
		status int
		want   string
	}{
		{http.MethodGet, 200, "No threads match"},
		{http.MethodPost, 405, "read-only"},
		{http.MethodPatch, 405, "read-only"},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, url, strings.NewReader("x"))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tt.status || !strings.Contains(string(body), tt.want) {
			t.Errorf("%s: %d %q, want %d with %q", tt.method, res.StatusCode, body, tt.status, tt.want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve returned %v after interrupt", err)
	}
	if !strings.Contains(errOut.String(), "read-only") || strings.Contains(errOut.String(), "warning") {
		t.Errorf("stderr: %q", errOut.String())
	}
}

func TestBadAddr(t *testing.T) {
	dir := chaintest.InitRepo(t)
	tests := []struct {
		addr, want string
	}{
		{"nonsense", "--addr \"nonsense\""},
		{"127.0.0.1:99999", "serve: listen tcp"},
	}
	for _, tt := range tests {
		r := cmdtest.RunCommand(t, dir, time.Time{}, serve.NewCmdServe, "--addr", tt.addr)
		if r.Code == 0 || !strings.Contains(r.Err, tt.want) {
			t.Errorf("--addr %s: exit %d, stderr %q; want %q", tt.addr, r.Code, r.Err, tt.want)
		}
	}
	if r := cmdtest.RunCommand(t, dir, time.Time{}, serve.NewCmdServe, "extra"); r.Code != 2 {
		t.Errorf("serve extra: exit %d, want 2", r.Code)
	}
}

// TestOpen: with --open the viewer's URL goes to the Factory's browser
// opener once the viewer listens; without it nothing is opened. The command
// line is parsed as a user's would be.
func TestOpen(t *testing.T) {
	dir := chaintest.InitRepo(t)
	for _, open := range []bool{true, false} {
		t.Run(fmt.Sprintf("open=%v", open), func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			f := cmdutil.NewFactory(ios)
			f.Getwd = func() (string, error) { return dir, nil }
			f.Repo = cmdutil.OpenRepoOnce(f)
			opened := make(chan string, 2)
			f.OpenBrowser = func(url string) error { opened <- url; return nil }
			addr := freeAddr(t)
			want := "http://" + addr + "/"
			args := []string{"--addr", addr}
			if open {
				args = append(args, "--open")
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan int, 1)
			go func() { done <- root.RunCommand(ctx, f, serve.NewCmdServe, args) }()
			// The viewer answers: it has passed the point where it opens
			// a browser or not.
			for {
				if res, err := http.Get(want); err == nil {
					res.Body.Close()
					break
				}
				select {
				case code := <-done:
					t.Fatalf("serve exited %d before answering at %s", code, want)
				case <-time.After(20 * time.Millisecond):
				}
			}
			cancel()
			if code := <-done; code != 0 {
				t.Fatalf("serve exited %d", code)
			}
			close(opened)
			var got []string
			for url := range opened {
				got = append(got, url)
			}
			switch {
			case open && (len(got) != 1 || got[0] != want):
				t.Errorf("serve --open opened %q, want [%s]", got, want)
			case !open && len(got) != 0:
				t.Errorf("serve without --open opened %q", got)
			}
		})
	}
}

// freeAddr returns a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
