package format

import (
	"errors"
	"fmt"
	"strings"
)

// checkUUID accepts a UUID of RFC 4122 in its string form: 32 hexadecimal
// digits in groups of 8-4-4-4-12 joined by hyphens, in either case.
func checkUUID(s string) error {
	if len(s) != 36 {
		return errors.New("not 36 characters long")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return errors.New("not hexadecimal groups of 8-4-4-4-12 joined by hyphens")
			}
		default:
			if !isHex(c) {
				return fmt.Errorf("character %q is not a hexadecimal digit", firstRune(s[i:]))
			}
		}
	}
	return nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// checkJSONPointer accepts a JSON pointer of RFC 6901: empty, or reference
// tokens each after a "/", in which "~" is only ever followed by "0" or
// "1".
func checkJSONPointer(s string) error {
	if s == "" {
		return nil
	}
	if s[0] != '/' {
		return errors.New("does not start with /")
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1') {
			return errors.New("~ not followed by 0 or 1")
		}
	}
	return nil
}

// checkRelativeJSONPointer accepts a relative JSON pointer
// (draft-handrews-relative-json-pointer-01): a non-negative decimal without
// leading zeros, then "#" or a JSON pointer.
func checkRelativeJSONPointer(s string) error {
	n := leadingDigits(s)
	if n == 0 {
		return errors.New("does not start with a non-negative integer")
	}
	if n > 1 && s[0] == '0' {
		return errors.New("integer with a leading zero")
	}
	switch rest := s[n:]; {
	case rest == "#" || rest == "":
		return nil
	case rest[0] != '/':
		return errors.New("integer not followed by # or /")
	default:
		return checkJSONPointer(rest)
	}
}

// checkSemver accepts a semantic version (semver.org 2.0.0):
// major.minor.patch without leading zeros, an optional pre-release after
// "-" and optional build metadata after "+", their identifiers being
// non-empty runs of ASCII letters, digits and hyphens, numeric pre-release
// identifiers without leading zeros.
func checkSemver(s string) error {
	s, build, hasBuild := strings.Cut(s, "+")
	if hasBuild {
		if build == "" {
			return errors.New("empty build metadata")
		}
		if err := semverIdentifiers(build, "build", false); err != nil {
			return err
		}
	}
	s, pre, hasPre := strings.Cut(s, "-")
	if hasPre {
		if err := semverIdentifiers(pre, "pre-release", true); err != nil {
			return err
		}
	}
	for i, name := range [3]string{"major", "minor", "patch"} {
		field, rest, more := strings.Cut(s, ".")
		if more != (i < 2) {
			return errors.New("not three numbers joined by dots")
		}
		switch {
		case field == "":
			return fmt.Errorf("empty %s version", name)
		case !allDigits(field):
			return fmt.Errorf("%s version is not a number", name)
		case len(field) > 1 && field[0] == '0':
			return fmt.Errorf("%s version with a leading zero", name)
		}
		s = rest
	}
	return nil
}

// semverIdentifiers checks the dot-separated identifiers of a pre-release
// or build; numeric ones must not have leading zeros when numeric is true.
func semverIdentifiers(s, what string, numeric bool) error {
	for {
		id, rest, more := strings.Cut(s, ".")
		if id == "" {
			return fmt.Errorf("empty %s identifier", what)
		}
		for i := 0; i < len(id); i++ {
			if c := id[i]; !isAlnum(c) && c != '-' {
				return fmt.Errorf("character %q in a %s identifier", firstRune(id[i:]), what)
			}
		}
		if numeric && len(id) > 1 && id[0] == '0' && allDigits(id) {
			return fmt.Errorf("numeric %s identifier with a leading zero", what)
		}
		if !more {
			return nil
		}
		s = rest
	}
}
