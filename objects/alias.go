package objects

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// crockford is the Crockford base32 alphabet (no I, L, O, U).
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// AliasLen is the length of an alias: 65 bits in 13 base32 digits.
const AliasLen = 13

// MinPrefixLen is the shortest prefix ResolvePrefix accepts.
const MinPrefixLen = 4

// Alias is the content-defined name of a node: the Crockford base32
// encoding of the XXH64 (seed 0) of the node's blob bytes. The 64-bit hash is
// read as a 65-bit big-endian number whose top bit is 0, so a canonical alias
// has 13 upper-case characters and starts with 0–F.
type Alias string

// String returns the alias as a string.
func (a Alias) String() string { return string(a) }

// AliasOf returns the alias of the given blob bytes.
func AliasOf(blob []byte) Alias {
	return encodeAlias(xxhash.Sum64(blob))
}

func encodeAlias(h uint64) Alias {
	var b [AliasLen]byte
	for i := range AliasLen {
		shift := uint(60 - 5*i)
		b[i] = crockford[(h>>shift)&0x1f]
	}
	return Alias(b[:])
}

// decodeDigit maps one Crockford character (case-insensitive, with I/L→1
// and O→0) to its value, or -1.
func decodeDigit(c byte) int {
	switch {
	case c >= 'a' && c <= 'z':
		c -= 'a' - 'A'
	}
	switch c {
	case 'I', 'L':
		return 1
	case 'O':
		return 0
	}
	i := strings.IndexByte(crockford, c)
	return i
}

// ParseAlias parses s as an alias. It accepts lower case and Crockford's
// substitutions (I and L for 1, O for 0) and returns the canonical form.
func ParseAlias(s string) (Alias, error) {
	if len(s) != AliasLen {
		return "", fmt.Errorf("parse alias %q: want %d characters, got %d", s, AliasLen, len(s))
	}
	b, err := canonicalDigits(s)
	if err != nil {
		return "", fmt.Errorf("parse alias %q: %w", s, err)
	}
	return Alias(b), nil
}

// IsAlias reports whether s is an alias in strict canonical form: 13
// upper-case Crockford characters, the first one 0–F.
func IsAlias(s string) bool {
	if len(s) != AliasLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte(crockford, c) < 0 {
			return false
		}
		if i == 0 && c > 'F' {
			return false
		}
	}
	return true
}

// normalizePrefix validates and canonicalizes an alias prefix.
func normalizePrefix(p string) (string, error) {
	if len(p) < MinPrefixLen {
		return "", fmt.Errorf("alias prefix %q: want at least %d characters", p, MinPrefixLen)
	}
	if len(p) > AliasLen {
		return "", fmt.Errorf("alias prefix %q: longer than %d characters", p, AliasLen)
	}
	b, err := canonicalDigits(p)
	if err != nil {
		return "", fmt.Errorf("alias prefix %q: %w", p, err)
	}
	return string(b), nil
}

// canonicalDigits spells the start of an alias in canonical form: each
// character decoded (case and the I, L and O substitutions folded) and
// written as its Crockford digit; the first must be 0-F.
func canonicalDigits(s string) ([]byte, error) {
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		d := decodeDigit(s[i])
		if d < 0 {
			return nil, fmt.Errorf("invalid character %q at offset %d", s[i], i)
		}
		if i == 0 && d > 15 {
			return nil, errors.New("first character must be 0-F")
		}
		b[i] = crockford[d]
	}
	return b, nil
}
