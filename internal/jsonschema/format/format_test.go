package format

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"
)

// examples are strings each format must accept and refuse. The
// differential test holds every one of them against the old validator.
var examples = []struct {
	name           string
	valid, invalid []string
}{
	{"date-time",
		[]string{"2021-02-28T12:00:00Z", "1963-06-19t08:30:06.283185z", "2000-02-29T00:00:00+01:00",
			"1998-12-31T23:59:60Z", "1998-12-31T15:59:60.123-08:00", "1999-01-01T00:59:60+01:00",
			"0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999+23:59", "2021-02-28T12:00:00.5-00:00"},
		[]string{"", "2021-02-29T12:00:00Z", "1900-02-29T00:00:00Z", "2021-02-28 12:00:00Z", "2021-02-28T12:00:00",
			"2021-02-28T24:00:00Z", "2021-02-28T12:60:00Z", "2021-02-28T12:00:61Z", "1998-12-31T23:58:60Z",
			"1998-12-31T23:59:60+01:00", "2021-02-28T12:00:00.Z", "2021-02-28T12:00:00+0100", "2021-02-28T12:00:00+24:00",
			"2021-02-28T12:00:00+01:60", "2021-2-28T12:00:00Z", "२०२१-02-28T12:00:00Z", "2021-02-28T12:00:00ZZ",
			"2021-13-01T00:00:00Z", "2021-00-01T00:00:00Z", "2021-04-31T00:00:00Z", "2021-02-28T1:00:00Z",
			"2021-02-28T12:00:00 Z", "2021-02-28T12:00:00+01:00Z"}},
	{"date",
		[]string{"2021-02-28", "2020-02-29", "2000-02-29", "0000-02-29", "9999-12-31", "2021-04-30"},
		[]string{"", "2021-02-29", "1900-02-29", "2021-04-31", "2021-00-10", "2021-13-10", "2021-01-00",
			"2021-01-32", "21-01-01", "2021-1-01", "2021-01-1", "2021/01/01", "2021-01-01T", " 2021-01-01",
			"+021-01-01", "2021-+1-01", "2021-01-+1", "20210101", "2021-01-01Z"}},
	{"time",
		[]string{"08:30:06Z", "08:30:06z", "08:30:06.283185Z", "23:59:60Z", "15:59:60-08:00", "00:59:60+01:00",
			"08:30:06+00:00", "08:30:06-23:59", "00:00:00Z"},
		[]string{"", "8:30:06Z", "08:30:06", "08:30Z", "24:00:00Z", "08:60:00Z", "08:30:61Z", "23:58:60Z",
			"23:59:60+01:00", "08:30:06.Z", "08:30:06+0800", "08:30:06+08", "08:30:06 08:00", "08:30:06+24:00",
			"08:30:06+08:60", "08:30:06UTC", "08:30:06.1.2Z", "08-30-06Z", "08:30:06Zulu", "０8:30:06Z"}},
	{"duration",
		[]string{"P1D", "P1W", "PT1H", "P1Y2M3DT4H5M6S", "P0D", "PT36H", "P1Y1D", "PT1H1S", "P12W"},
		[]string{"", "P", "PT", "P1DT", "1D", "P1", "PD", "P1Y2W", "P1W1D", "PW", "P1D1Y", "P1M1Y", "PT1S1H",
			"P1H", "PT1D", "P1DT1HT1M", "P1.5D", "p1D", "P-1D", "P1DT1H ", "P 1D", "PT1Y"}},
	{"period",
		[]string{"2021-01-01T00:00:00Z/2021-02-01T00:00:00Z", "2021-01-01T00:00:00Z/P1M", "P1M/2021-02-01T00:00:00Z",
			"2021-01-01T00:00:00Z/PT1H"},
		[]string{"", "2021-01-01T00:00:00Z", "P1M", "P1M/P1D", "2021-01-01/2021-02-01", "2021-01-01T00:00:00Z/",
			"/2021-01-01T00:00:00Z", "2021-01-01T00:00:00Z/P", "PX/2021-02-01T00:00:00Z",
			"2021-01-01T00:00:00Z/2021-02-01T00:00:00Z/P1D"}},
	{"email",
		[]string{"joe.bloggs@example.com", "a@b", "te~st@example.com", "!#$%&'*+-/=?^_`{|}~@example.com",
			`"joe bloggs"@example.com`, `"joe@bloggs"@example.com`, `""@example.com`, `"é"@example.com`,
			"joe@[127.0.0.1]", "joe@[IPv6:::1]", "joe@[IPv6:2001:db8::1]", "joe@example.com.",
			strings.Repeat("a", 64) + "@example.com"},
		[]string{"", "joe", "joe@", "@example.com", ".joe@example.com", "joe.@example.com", "jo..e@example.com",
			"jo e@example.com", "joé@example.com", `"jo"e"@example.com`, `"jo\e"@example.com`, `"@example.com`,
			"joe@-example.com", "joe@example..com", "joe@[127.0.0.01]", "joe@[::1]", "joe@[IPv6:127.0.0.1]",
			"joe@[IPv6:fe80::1%eth0]", "joe@[127.0.0.1", "joe@exa_mple.com", "joe@[]",
			strings.Repeat("a", 65) + "@example.com",
			strings.Repeat("a", 64) + "@" + strings.Repeat(strings.Repeat("b", 62)+".", 3) + "bbb"}},
	{"hostname",
		[]string{"example.com", "example.com.", "a", "A-0.b", "xn--bcher-kva.example", "1.2.3.4", "123",
			strings.Repeat("a", 63) + ".com",
			strings.Repeat(strings.Repeat("b", 62)+".", 5)[:253],
			strings.Repeat(strings.Repeat("b", 62)+".", 5)[:253] + "."},
		[]string{"", ".", "..", "example..com", ".example.com", "-a", "a-", "a.-b.c", "exa_mple.com", "exa mple.com",
			"bücher.example", "example.com..", strings.Repeat("a", 64) + ".com",
			strings.Repeat(strings.Repeat("b", 62)+".", 5)[:254], "a@b"}},
	{"ipv4",
		[]string{"0.0.0.0", "127.0.0.1", "255.255.255.255", "192.168.0.10", "1.2.3.4"},
		[]string{"", "01.2.3.4", "1.2.3.04", "1.2.3.00", "256.1.1.1", "1.2.3", "1.2.3.4.5", "1.2.3.", ".1.2.3",
			"1..2.3", "a.b.c.d", "1.2.3.4 ", "0x7f.0.0.1", "127.1", "١.2.3.4", "1.2.3.4/8", "::1",
			"99999999999999999999.1.1.1"}},
	{"ipv6",
		[]string{"::1", "::", "1::", "2001:db8::1", "1:2:3:4:5:6:7:8", "::ffff:127.0.0.1", "1:2:3:4:5:6:1.2.3.4",
			"FE80::ABCD", "0:0:0:0:0:0:0:0", "::1.2.3.4"},
		[]string{"", "1", "1.2.3.4", "1::2::3", ":::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::", "g::1",
			"fe80::1%eth0", "::ffff:127.0.0.01", "::ffff:256.0.0.1", "[::1]", " ::1", "::1 ", "1:2:3:4:5:6:7:1.2.3.4",
			":1:2::", "1::2:"}},
	{"uri",
		[]string{"http://example.com", "https://example.com/a/b?q=1#frag", "mailto:joe@example.com",
			"urn:isbn:0451450523", "file:///etc/passwd", "http://[::1]:8080/", "http://example.com/a%20b",
			"http://example.com/é", "foo+bar.baz-1:x", "http://user:pass@example.com/", "http://example.com/a b",
			"tag:example.com,2021:x"},
		[]string{"", "/a/b", "a/b", "//example.com/a", "#frag", "?q", "http://example.com/%zz", "http://[::1/",
			"http://exa mple.com/", "://example.com", ":", "1http://example.com", "http://example.com/\x00",
			"http://[1.2.3.4]/", "http://::1/", "http://[::1%25eth0]/"}},
	{"iri",
		[]string{"http://ƒøø.ßår/?∂éœ=πîx#πîüx", "http://[2001:db8::1]/"},
		[]string{"/abc", "http://2001:db8::1/"}},
	{"uri-reference",
		[]string{"", "/a/b", "a/b", "//example.com/a", "#frag", "?q", "http://example.com", "../x", "a:b"},
		[]string{`\\WINDOWS\fileshare`, `a\b`, "http://example.com/%zz", "#%zz", ":a", "%zz", "http://[::1/"}},
	{"iri-reference",
		[]string{"http://ƒøø.ßår/?∂éœ=πîx#πîüx", "//ƒøø.ßår/?∂éœ=πîx#πîüx", "#ƒrägmênt"},
		[]string{`\\WINDOWS\filëßåré`, "#ƒräg\\mênt"}},
	{"uri-template",
		[]string{"http://example.com/dictionary/{term:1}/{term}", "http://example.com/{a}{b}/c",
			"dictionary/{term:1}/{term}", "/x", "",
			"http://example.com/%7Ba"}, // net/url keeps no raw path for this one: v6 checks nothing
		[]string{"http://example.com/dictionary/{term:1}/{term", "http://example.com/{{a}}/",
			"http://example.com/}a{/", "http://example.com/{a%7D{", "http://example.com/%zz", "http://[::1/{a}"}},
	{"uuid",
		[]string{"2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2EB8AA08-AA98-11EA-B4AA-73B441D16380",
			"00000000-0000-0000-0000-000000000000", "98d80576-482e-427f-8434-7f86890ab222"},
		[]string{"", "2eb8aa08-aa98-11ea-b4aa-73b441d1638", "2eb8aa08-aa98-11ea-b4aa-73b441d163800",
			"2eb8aa08aa9811eab4aa73b441d16380", "2eb8aa08-aa98-11ea-b4aa-73b441d1638g",
			"2eb8aa08-aa9811ea-b4aa-73b441d16380", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}",
			"2eb8aa0-8aa98-11ea-b4aa-73b441d16380", "2eb8aa08-aa98-11ea-b4aa-73b441d1638é"}},
	{"json-pointer",
		[]string{"", "/", "/foo", "/foo/0", "/a~1b", "/m~0n", "//", "/ ", "/é", "/~01", "/foo/-"},
		[]string{"foo", "#/foo", "/~", "/~2", "/a~", "/~/a", "/~a", "a/b"}},
	{"relative-json-pointer",
		[]string{"0", "1", "0#", "1/a", "10/a/b", "0/", "2/~01"},
		[]string{"", "#", "/a", "01", "00#", "-1", "+1/a", "1#/a", "0##", "1a", "1/~2", "0 "}},
	{"regex",
		[]string{"", "a+b", "^[a-z]{1,3}$", `\d`, "(?i)x", `\p{Greek}`},
		[]string{"(", "[a", "a**", `\`, "x{2,1}", "(?<n", `\8`}},
	{"semver",
		[]string{"1.0.0", "0.0.0", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7", "1.0.0-x-y-z.--",
			"1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "1.0.0+21AF26D3----117B344092BD", "1.0.0-rc.1+build.01"},
		[]string{"", "1", "1.0", "1.0.0.0", "01.0.0", "1.01.0", "1.0.01", "1.0.0-", "1.0.0+", "1.0.0-01",
			"1.0.0-alpha..1", "1.0.0+a..b", "1.0.0-é", "1.a.0", "v1.0.0", "1.0.0 ", "-1.0.0", "1..0"}},
}

// stricter are strings the old validator accepts although the format's
// RFC forbids them, and this package refuses (see the package doc).
var stricter = []struct{ name, s string }{
	{"ipv4", "+1.2.3.4"},
	{"ipv4", "-0.0.0.0"},
	{"ipv4", "1.2.3.+255"},
	{"email", "@example.com"},
	{"email", "joe@[+127.0.0.1]"},
	{"time", "+1:00:00Z"},
	{"time", "-0:00:00Z"},
	{"time", "01:+1:00Z"},
	{"time", "01:00:+1Z"},
	{"time", "01:00:00++1:00"},
	{"time", "01:00:00+-0:00"},
	{"date-time", "2021-01-01T+1:00:00Z"},
	{"period", "2021-01-01T00:00:00Z/2021-01-01T00:00:+1Z"},
}

// oracle returns the old validator's verdict on format name: the schema
// {"format": name} with formats asserted.
func oracle(t testing.TB, name string) *js.Schema {
	t.Helper()
	c := js.NewCompiler()
	c.AssertFormat()
	const url = "format.json"
	if err := c.AddResource(url, map[string]any{"format": name}); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func lookup(t testing.TB, name string) func(any) error {
	t.Helper()
	check, ok := Lookup(name)
	if !ok || check == nil {
		t.Fatalf("Lookup(%q) = %v, %v; want a checker", name, check != nil, ok)
	}
	return check
}

func TestFormats(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			check := lookup(t, ex.name)
			for _, s := range ex.valid {
				if err := check(s); err != nil {
					t.Errorf("%q: %v; want valid", s, err)
				}
			}
			for _, s := range ex.invalid {
				if err := check(s); err == nil {
					t.Errorf("%q is valid; want invalid", s)
				} else if err.Error() == "" {
					t.Errorf("%q: empty error", s)
				}
			}
		})
	}
}

func TestOnlyStringsAreChecked(t *testing.T) {
	others := []any{nil, true, json.Number("1"), float64(2), map[string]any{"a": "b"}, []any{"x"}}
	for _, ex := range examples {
		check := lookup(t, ex.name)
		for _, v := range others {
			if err := check(v); err != nil {
				t.Errorf("%s: %#v: %v; want no error for a value that is not a string", ex.name, v, err)
			}
		}
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, name := range []string{"", "uwf_ref", "Date-Time", "date-time ", "idn-email", "idn-hostname", "int32"} {
		if check, ok := Lookup(name); ok || check != nil {
			t.Errorf("Lookup(%q) = %v, %v; want nil, false", name, check != nil, ok)
		}
		// v6 lets anything through under a name it does not know.
		if err := oracle(t, name).Validate("@@ not anything\x00"); err != nil {
			t.Errorf("v6 knows format %q: %v", name, err)
		}
	}
}

// TestAgreesWithV6 holds every example against the old validator, and
// checks that it does accept each documented case this package refuses.
func TestAgreesWithV6(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			check, old := lookup(t, ex.name), oracle(t, ex.name)
			for _, s := range append(append([]string(nil), ex.valid...), ex.invalid...) {
				got, want := check(s), old.Validate(s)
				if (got == nil) != (want == nil) && (got == nil || !knownStricter(ex.name, s)) {
					t.Errorf("%q: got %v, v6 %v", s, got, want)
				}
			}
		})
	}
	for _, c := range stricter {
		if err := oracle(t, c.name).Validate(c.s); err != nil {
			t.Errorf("v6 refuses %s %q (%v): drop it from stricter", c.name, c.s, err)
		}
		if err := lookup(t, c.name)(c.s); err == nil {
			t.Errorf("%s %q is valid; want invalid", c.name, c.s)
		}
		if !knownStricter(c.name, c.s) {
			t.Errorf("knownStricter(%s, %q) = false", c.name, c.s)
		}
	}
}

// TestCalendarAgreesWithV6 sweeps the fields of dates and of leap-second
// times, where the rules are arithmetic, against the old validator.
func TestCalendarAgreesWithV6(t *testing.T) {
	var dates, times []string
	for _, y := range []string{"0000", "0004", "1900", "2000", "2021", "2024", "2100", "9999"} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				dates = append(dates, fmt.Sprintf("%s-%02d-%02d", y, m, d))
			}
		}
	}
	for _, off := range []string{"Z", "+00:00", "-00:00", "+00:01", "-00:01", "+01:00", "-08:00", "+05:30", "+23:59", "-23:59"} {
		for h := 0; h < 24; h++ {
			for m := 0; m < 60; m++ {
				times = append(times, fmt.Sprintf("%02d:%02d:60%s", h, m, off))
			}
		}
	}
	valid := 0
	for _, sweep := range []struct {
		name   string
		values []string
	}{
		{"date", dates},
		{"time", times},
		{"date-time", func() (out []string) {
			for i, tm := range times {
				out = append(out, dates[i%len(dates)]+"T"+tm)
			}
			return out
		}()},
	} {
		check, old := lookup(t, sweep.name), oracle(t, sweep.name)
		for _, s := range sweep.values {
			got, want := check(s), old.Validate(s)
			if (got == nil) != (want == nil) {
				t.Errorf("%s %q: got %v, v6 %v", sweep.name, s, got, want)
			}
			if got == nil {
				valid++
			}
		}
	}
	if valid == 0 {
		t.Fatal("the sweep found nothing valid")
	}
}

// names are the formats the fuzz test draws from.
var names = func() []string {
	var out []string
	for _, ex := range examples {
		out = append(out, ex.name)
	}
	return out
}()

// FuzzFormats holds a format, picked by index, and a string against the
// old validator. They must agree, but for the documented cases where this
// package is stricter.
func FuzzFormats(f *testing.F) {
	for i, ex := range examples {
		for _, s := range ex.valid {
			f.Add(uint8(i), s)
		}
		for _, s := range ex.invalid {
			f.Add(uint8(i), s)
		}
	}
	for _, c := range stricter {
		for i, n := range names {
			if n == c.name {
				f.Add(uint8(i), c.s)
			}
		}
	}
	checks := make([]func(any) error, len(names))
	olds := make([]*js.Schema, len(names))
	for i, n := range names {
		checks[i], olds[i] = lookup(f, n), oracle(f, n)
	}
	f.Fuzz(func(t *testing.T, i uint8, s string) {
		k := int(i) % len(names)
		got, want := checks[k](s), olds[k].Validate(s)
		switch {
		case (got == nil) == (want == nil):
		case got != nil && knownStricter(names[k], s):
		default:
			t.Errorf("%s %q: got %v, v6 %v", names[k], s, got, want)
		}
	})
}

// knownStricter reports whether s falls under one of the documented cases
// where this package refuses what the old validator accepts.
func knownStricter(name, s string) bool {
	switch name {
	case "ipv4":
		return strings.ContainsAny(s, "+-")
	case "email":
		at := strings.LastIndexByte(s, '@')
		return at == 0 || strings.HasPrefix(s[at+1:], "[") && strings.ContainsAny(s[at+1:], "+-")
	case "time":
		return signedField(s)
	case "date-time":
		return len(s) > 11 && signedField(s[11:])
	case "period":
		start, end, _ := strings.Cut(s, "/")
		return len(start) > 11 && signedField(start[11:]) || len(end) > 11 && signedField(end[11:])
	}
	return false
}

// signedField reports whether a time has a sign in place of the first
// digit of one of its two-digit fields.
func signedField(t string) bool {
	sign := func(i int) bool { return i < len(t) && (t[i] == '+' || t[i] == '-') }
	if sign(0) || sign(3) || sign(6) {
		return true
	}
	if len(t) < 9 {
		return false
	}
	off := t[8:]
	if frac, ok := strings.CutPrefix(off, "."); ok {
		off = strings.TrimLeft(frac, "0123456789")
	}
	return len(off) == 6 && (strings.ContainsAny(off[1:2], "+-") || strings.ContainsAny(off[4:5], "+-"))
}

// BenchmarkLookupCheck checks one valid value of a format, with this
// package and with the old validator's own checker of it.
func BenchmarkLookupCheck(b *testing.B) {
	for _, c := range []struct{ name, value string }{
		{"date-time", "1963-06-19T08:30:06.283185Z"},
		{"email", "joe.bloggs@example.com"},
		{"uri", "https://example.com/a/b?q=1#frag"},
		{"ipv6", "2001:db8::ff00:42:8329"},
	} {
		var v any = c.value
		b.Run(c.name, func(b *testing.B) {
			check := lookup(b, c.name)
			b.ReportAllocs()
			for b.Loop() {
				if err := check(v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/v6", func(b *testing.B) {
			check := oracle(b, c.name).Format.Validate
			b.ReportAllocs()
			for b.Loop() {
				if err := check(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
