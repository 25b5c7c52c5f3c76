package gitobj

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// FuzzParseHash: parseHash takes what plumbing.IsHash takes, and reads it
// as plumbing.NewHash does.
func FuzzParseHash(f *testing.F) {
	for _, s := range []string{"", "0123456789abcdef0123456789abcdef01234567", "ABCDEF0123456789abcdef0123456789ABCDEF01", "0123456789abcdef0123456789abcdef0123456g", "+123456789abcdef0123456789abcdef01234567"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := parseHash([]byte(s), "tree")
		if ok := plumbing.IsHash(s); (err == nil) != ok {
			t.Fatalf("parseHash(%q) error %v; IsHash %v", s, err, ok)
		}
		if err == nil && h != plumbing.NewHash(s) {
			t.Fatalf("parseHash(%q) = %s; NewHash gives %s", s, h, plumbing.NewHash(s))
		}
	})
}
