package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/web"
)

// TestHostOptions: a viewer bound to a specific non-loopback address
// answers only requests naming that address (DNS-rebinding protection
// kept); only an unspecified address accepts any Host header.
func TestHostOptions(t *testing.T) {
	dir := chaintest.InitRepo(t)
	repo, err := chain.Open(context.Background(), dir, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		listen string
		host   string
		status int
	}{
		{"127.0.0.1", "127.0.0.1:7733", 200},
		{"127.0.0.1", "attacker.example", 421},
		{"localhost", "attacker.example:7733", 421},
		{"192.168.1.5", "192.168.1.5:7733", 200},
		{"192.168.1.5", "192.168.1.5", 200},
		{"192.168.1.5", "localhost:7733", 200},
		{"192.168.1.5", "attacker.example:7733", 421},
		{"192.168.1.5", "192.168.1.6:7733", 421},
		{"myhost.lan", "MyHost.lan:7733", 200},
		{"myhost.lan", "attacker.example", 421},
		{"fd00::5", "[fd00::5]:7733", 200},
		{"fd00::5", "[fd00::6]:7733", 421},
		{"0.0.0.0", "attacker.example:7733", 200},
		{"::", "anything.example", 200},
		{"", "anything.example", 200},
	}
	for _, tt := range tests {
		opts, _ := hostOptions(tt.listen)
		srv, err := web.New(repo, opts)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Host = tt.host
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code != tt.status {
			t.Errorf("listening on %q, Host %q: status %d, want %d", tt.listen, tt.host, rec.Code, tt.status)
		}
	}
}
