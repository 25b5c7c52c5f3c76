// Package format checks the standard string formats of JSON Schema
// ("date-time", "email", "uri", …) for git-uwf's validator.
//
// The formats and what each accepts follow the validator git-uwf used
// before its own, santhosh-tekuri/jsonschema/v6, so that a schema keeps
// its meaning; a differential test and a fuzz test hold the two together.
// Where that validator accepts what the format's RFC plainly forbids, this
// package rejects it; each such case is named at the checker concerned:
//
//   - ipv4 (and an email's IPv4 domain literal): a decimal with a sign,
//     "+1.2.3.4" or "-0.0.0.0";
//   - time, date-time and period: a two-digit field with a sign, "+1:00:00Z";
//   - email: an empty local part, "@example.com".
//
// The names it knows are v6's: date-time, date, time, duration, period,
// email, hostname, ipv4, ipv6, uri, uri-reference, iri, iri-reference,
// uri-template, uuid, json-pointer, relative-json-pointer, regex and
// semver. v6 has no idn-email or idn-hostname and lets any value through
// under a name it does not know, as a validator should under a name
// Lookup does not know. "regex" is Go's regexp syntax, as v6's default,
// not ECMA-262.
//
// The package does no work when it is loaded: the checkers are plain
// functions and Lookup is a switch. The URI formats are what Go's net/url
// parses, as they were for the old validator.
package format

// Lookup returns the checker of a standard JSON Schema format and true, or
// nil and false for a name it does not know.
//
// A checker gets a decoded JSON instance (string, json.Number, bool, nil,
// map or slice). Only strings are checked: any other value passes. The
// error of a string that does not conform says briefly why.
func Lookup(name string) (check func(v any) error, ok bool) {
	var f func(string) error
	switch name {
	case "date-time":
		f = checkDateTime
	case "date":
		f = checkDate
	case "time":
		f = checkTime
	case "duration":
		f = checkDuration
	case "period":
		f = checkPeriod
	case "email":
		f = checkEmail
	case "hostname":
		f = checkHostname
	case "ipv4":
		f = checkIPv4
	case "ipv6":
		f = checkIPv6
	case "uri", "iri":
		f = checkURI
	case "uri-reference", "iri-reference":
		f = checkURIReference
	case "uri-template":
		f = checkURITemplate
	case "uuid":
		f = checkUUID
	case "json-pointer":
		f = checkJSONPointer
	case "relative-json-pointer":
		f = checkRelativeJSONPointer
	case "regex":
		f = checkRegex
	case "semver":
		f = checkSemver
	default:
		return nil, false
	}
	return stringsOnly(f), true
}

// stringsOnly makes a checker of strings into one of any JSON value, for
// which values that are not strings pass.
func stringsOnly(f func(string) error) func(any) error {
	return func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		return f(s)
	}
}

// number returns the value of s, which must be all ASCII digits; ok is
// false for an empty s, a sign or any other byte, and for more than 9
// digits.
func number(s string) (n int, ok bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// leadingDigits returns how many ASCII digits s starts with.
func leadingDigits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	return s != "" && leadingDigits(s) == len(s)
}
