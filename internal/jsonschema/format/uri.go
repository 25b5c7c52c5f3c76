package format

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
)

// The URI formats are what Go's net/url parses, as they were for the old
// validator, so the two agree by construction on every Go release; net/url
// is more lenient than RFC 3986 (it takes spaces and non-ASCII text in a
// path, for one), which is also why "iri" and "iri-reference" are the same
// checks as "uri" and "uri-reference".

// parseURL parses s with net/url and also refuses a host with a colon in
// it that is not a bracketed IPv6 address, which net/url lets through.
func parseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, ue.Err
		}
		return nil, err
	}
	if host := u.Hostname(); strings.IndexByte(host, ':') >= 0 {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return nil, errors.New("IPv6 host not in brackets")
		}
		if err := checkIPv6(host); err != nil {
			return nil, errors.New("IPv6 host: " + err.Error())
		}
	}
	return u, nil
}

// checkURI accepts an absolute URI: one with a scheme.
func checkURI(s string) error {
	u, err := parseURL(s)
	if err != nil {
		return err
	}
	if u.Scheme == "" {
		return errors.New("no scheme")
	}
	return nil
}

// checkURIReference accepts a URI or a relative reference; a backslash,
// which net/url would take, is refused.
func checkURIReference(s string) error {
	if strings.IndexByte(s, '\\') >= 0 {
		return errors.New("backslash")
	}
	_, err := parseURL(s)
	return err
}

// checkURITemplate accepts a URI reference whose escaped path has, in each
// segment once unescaped, braces that pair up without nesting.
func checkURITemplate(s string) error {
	u, err := parseURL(s)
	if err != nil {
		return err
	}
	path := u.RawPath
	for {
		segment, rest, more := strings.Cut(path, "/")
		segment, err := url.PathUnescape(segment)
		if err != nil {
			return errors.New("path: " + err.Error())
		}
		open := false
		for i := 0; i < len(segment); i++ {
			switch segment[i] {
			case '{':
				if open {
					return errors.New("nested braces")
				}
				open = true
			case '}':
				if !open {
					return errors.New("closing brace without an opening one")
				}
				open = false
			}
		}
		if open {
			return errors.New("opening brace without a closing one")
		}
		if !more {
			return nil
		}
		path = rest
	}
}

// checkRegex accepts a regular expression that Go's regexp compiles, as
// the old validator's default regexp engine did.
func checkRegex(s string) error {
	_, err := regexp.Compile(s)
	return err
}
