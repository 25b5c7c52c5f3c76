package gitobj

import (
	"testing"
)

// FuzzParseHash: parseHash takes what IsHash takes, and reads it
// as NewHash does.
func FuzzParseHash(f *testing.F) {
	for _, s := range []string{"", "0123456789abcdef0123456789abcdef01234567", "ABCDEF0123456789abcdef0123456789ABCDEF01", "0123456789abcdef0123456789abcdef0123456g", "+123456789abcdef0123456789abcdef01234567"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := parseHash([]byte(s), "tree")
		if ok := IsHash(s); (err == nil) != ok {
			t.Fatalf("parseHash(%q) error %v; IsHash %v", s, err, ok)
		}
		if err == nil && h != NewHash(s) {
			t.Fatalf("parseHash(%q) = %s; NewHash gives %s", s, h, NewHash(s))
		}
	})
}
