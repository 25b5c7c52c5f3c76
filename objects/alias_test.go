package objects

import (
	"math/big"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// refAlias is an independent encoder: math/big base 32 mapped onto Crockford.
func refAlias(h uint64) string {
	s := new(big.Int).SetUint64(h).Text(32)
	s = strings.Repeat("0", AliasLen-len(s)) + s
	const std = "0123456789abcdefghijklmnopqrstuv"
	var b strings.Builder
	for _, c := range s {
		b.WriteByte(crockford[strings.IndexRune(std, c)])
	}
	return b.String()
}

func TestAliasOf(t *testing.T) {
	tests := []struct {
		name string
		blob string
		want Alias
	}{
		{"empty", "", Alias(refAlias(0xef46db3751d8e999))},
		{"meta-like", `{"payload":true}`, Alias(refAlias(xxhash.Sum64String(`{"payload":true}`)))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AliasOf([]byte(tt.blob))
			if got != tt.want {
				t.Fatalf("AliasOf(%q) = %s, want %s", tt.blob, got, tt.want)
			}
			if !IsAlias(string(got)) {
				t.Fatalf("IsAlias(%s) = false", got)
			}
		})
	}
	for _, h := range []uint64{0, 1, 31, 32, 1 << 63, ^uint64(0), 0x0123456789abcdef} {
		if got, want := string(encodeAlias(h)), refAlias(h); got != want {
			t.Errorf("encodeAlias(%#x) = %s, want %s", h, got, want)
		}
	}
	if got := encodeAlias(^uint64(0)); got != "FZZZZZZZZZZZZ" {
		t.Errorf("max alias = %s", got)
	}
}

func TestParseAlias(t *testing.T) {
	tests := []struct {
		in      string
		want    Alias
		wantErr bool
	}{
		{in: "0123456789ABC", want: "0123456789ABC"},
		{in: "fzzzzzzzzzzzz", want: "FZZZZZZZZZZZZ"},
		{in: "0IL0O00000000", want: "0110000000000"},
		{in: "0il0o00000000", want: "0110000000000"},
		{in: "G000000000000", wantErr: true}, // first char > F
		{in: "0U00000000000", wantErr: true}, // U is not Crockford
		{in: "0123456789AB", wantErr: true},  // short
		{in: "0123456789ABCD", wantErr: true},
		{in: "0123456789AB-", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAlias(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseAlias(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("ParseAlias(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestIsAlias(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"0123456789ABC", true},
		{"FZZZZZZZZZZZZ", true},
		{"GZZZZZZZZZZZZ", false},
		{"0123456789abc", false},
		{"0I23456789ABC", false},
		{"0123456789AB", false},
	}
	for _, tt := range tests {
		if got := IsAlias(tt.in); got != tt.want {
			t.Errorf("IsAlias(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzParseAlias(f *testing.F) {
	for _, s := range []string{"0123456789ABC", "fzzzzzzzzzzzz", "0IL0O00000000", "G000000000000", "", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAlias(s)
		if err != nil {
			if IsAlias(s) {
				t.Fatalf("IsAlias(%q) but ParseAlias failed: %v", s, err)
			}
			return
		}
		if !IsAlias(string(a)) {
			t.Fatalf("ParseAlias(%q) = %q, not canonical", s, a)
		}
		if IsAlias(s) && string(a) != s {
			t.Fatalf("canonical %q parsed to %q", s, a)
		}
		b, err := ParseAlias(string(a))
		if err != nil || b != a {
			t.Fatalf("ParseAlias not idempotent: %q -> %q -> %q, %v", s, a, b, err)
		}
		if !strings.EqualFold(strings.NewReplacer("I", "1", "L", "1", "O", "0", "i", "1", "l", "1", "o", "0").Replace(s), string(a)) {
			t.Fatalf("ParseAlias(%q) = %q changed more than case and substitutions", s, a)
		}
	})
}
