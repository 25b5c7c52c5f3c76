package format

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// checkIPv4 accepts an IPv4 address in dotted-decimal form: four decimals
// from 0 to 255 without leading zeros (RFC 2673 section 3.2).
//
// The old validator read each decimal with strconv.Atoi and so took a sign,
// "+1.2.3.4" or "-0.0.0.0"; this checker does not.
func checkIPv4(s string) error {
	for i := range 4 {
		field := s
		if i < 3 {
			dot := strings.IndexByte(s, '.')
			if dot < 0 {
				return errors.New("not four decimals separated by dots")
			}
			field, s = s[:dot], s[dot+1:]
		}
		n, ok := number(field)
		switch {
		case !ok:
			if i == 3 && strings.IndexByte(field, '.') >= 0 {
				return errors.New("not four decimals separated by dots")
			}
			return fmt.Errorf("%q is not a decimal", field)
		case len(field) > 1 && field[0] == '0':
			return fmt.Errorf("%q has a leading zero", field)
		case n > 255:
			return fmt.Errorf("%s is more than 255", field)
		}
	}
	return nil
}

// checkIPv6 accepts an IPv6 address of RFC 4291 section 2.2, the forms
// with an embedded IPv4 address included, as net/netip parses it; a zone
// ("%eth0") is not part of an address and is refused.
func checkIPv6(s string) error {
	if strings.IndexByte(s, ':') < 0 {
		return errors.New("no colon")
	}
	addr, err := netip.ParseAddr(s)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "ParseAddr("+strconv.Quote(s)+"): "))
	}
	if addr.Zone() != "" {
		return errors.New("a zone is not part of an address")
	}
	return nil
}

// checkHostname accepts a host name of RFC 1123 section 2.1: labels of 1
// to 63 ASCII letters, digits and hyphens, neither first nor last a
// hyphen, joined by dots, at most 253 bytes without the one trailing dot
// it may have.
func checkHostname(s string) error {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return errors.New("longer than 253 characters")
	}
	for {
		label, rest, more := strings.Cut(s, ".")
		if err := checkLabel(label); err != nil {
			return err
		}
		if !more {
			return nil
		}
		s = rest
	}
}

// checkLabel checks one label of a host name.
func checkLabel(label string) error {
	if label == "" || len(label) > 63 {
		return errors.New("a label is not 1 to 63 characters long")
	}
	if label[0] == '-' {
		return errors.New("a label starts with a hyphen")
	}
	if label[len(label)-1] == '-' {
		return errors.New("a label ends with a hyphen")
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		if !isAlnum(c) && c != '-' {
			return fmt.Errorf("character %q in a label", firstRune(label[i:]))
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// firstRune returns the character s starts with.
func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}

// checkEmail accepts an email address: at most 254 bytes, a local part of
// at most 64 and a domain joined by the last "@".
//
// The local part is either quoted, any characters but a backslash or a
// double quote between double quotes, or dot-atoms of the letters, digits
// and !#$%&'*+-/=?^_`{|}~ of RFC 5322. The old validator also took an
// empty local part, "@example.com", which RFC 5322 does not; this checker
// refuses it.
//
// The domain is a host name as checkHostname accepts it, or an address
// literal: [IPv6:address] or [IPv4 address].
func checkEmail(s string) error {
	if len(s) > 254 {
		return errors.New("longer than 254 characters")
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return errors.New("no @")
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return errors.New("local part longer than 64 characters")
	}
	if err := checkLocalPart(local); err != nil {
		return err
	}
	if len(domain) > 1 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		literal := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(literal, "IPv6:"); ok {
			if err := checkIPv6(v6); err != nil {
				return fmt.Errorf("IPv6 address literal: %w", err)
			}
			return nil
		}
		if err := checkIPv4(literal); err != nil {
			return fmt.Errorf("IPv4 address literal: %w", err)
		}
		return nil
	}
	if err := checkHostname(domain); err != nil {
		return fmt.Errorf("domain: %w", err)
	}
	return nil
}

// checkLocalPart checks the part of an email address before the "@".
func checkLocalPart(local string) error {
	if local == "" {
		return errors.New("empty local part")
	}
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `\"`) {
			return errors.New("backslash or double quote in a quoted local part")
		}
		return nil
	}
	if local[0] == '.' {
		return errors.New("local part starts with a dot")
	}
	if local[len(local)-1] == '.' {
		return errors.New("local part ends with a dot")
	}
	if strings.Contains(local, "..") {
		return errors.New("two dots in a row in the local part")
	}
	for i := 0; i < len(local); i++ {
		if c := local[i]; !isAlnum(c) && strings.IndexByte(".!#$%&'*+-/=?^_`{|}~", c) < 0 {
			return fmt.Errorf("character %q in the local part", firstRune(local[i:]))
		}
	}
	return nil
}
