package jsonschema

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/jsonschema/format"
)

// The differential tests apply each schema to each instance with this
// package and with the oracle (oracle_test.go) and want the same verdict
// and the same violation lines.

const (
	d4    = `"$schema":"http://json-schema.org/draft-04/schema#",`
	d6    = `"$schema":"http://json-schema.org/draft-06/schema#",`
	d7    = `"$schema":"http://json-schema.org/draft-07/schema#",`
	d2019 = `"$schema":"https://json-schema.org/draft/2019-09/schema",`
	d2020 = `"$schema":"https://json-schema.org/draft/2020-12/schema",`
)

func evenFormat(v any) error {
	if s, ok := v.(string); ok && len(s)%2 != 0 {
		return errors.New("odd length")
	}
	return nil
}

// configs are the ways each schema is compiled.
var diffConfigs = []struct {
	name string
	cfg  func() Config
}{
	{"annotate", func() Config { return Config{Formats: map[string]func(any) error{"even": evenFormat}} }},
	{"assert", func() Config {
		return Config{AssertFormat: true, Formats: map[string]func(any) error{"even": evenFormat}}
	}},
}

var diffCases = []struct {
	schema    string
	instances []string
}{
	// type, const, enum
	{`{"type":"string"}`, []string{`"a"`, `1`, `null`, `{}`, `[]`, `true`}},
	{`{"type":["integer","null"]}`, []string{`1`, `1.0`, `1.5`, `null`, `"x"`, `12345678901234567890`}},
	{`{"type":"integer"}`, []string{`1e3`, `-0`, `0.1`, `true`}},
	{`{"type":["number","string","array","object","boolean"]}`, []string{`null`, `1`}},
	{`{"const":12345678901234567890}`, []string{`12345678901234567890`, `12345678901234567891`, `1.2345678901234567890e19`}},
	{`{"const":"it's \"q\"\n"}`, []string{`"x"`, `"it's \"q\"\n"`}},
	{`{"const":{"a":[1,2]}}`, []string{`{"a":[1,2.0]}`, `{"a":[2,1]}`, `{}`}},
	{`{"const":null}`, []string{`null`, `false`, `0`}},
	{`{"enum":["a","b",1,null,true]}`, []string{`"a"`, `"c"`, `1.0`, `2`, `null`, `false`}},
	{`{"enum":["only"]}`, []string{`"only"`, `"other"`}},
	{`{"enum":[[1],{"a":1}]}`, []string{`[1]`, `[2]`, `{"a":1}`}},
	{`{"type":"string","enum":["a"],"minLength":3}`, []string{`1`, `"b"`, `"a"`}},
	// numbers
	{`{"minimum":3,"maximum":10.5}`, []string{`3`, `2.999`, `10.5`, `10.6`, `"x"`, `1234567`, `-1e300`}},
	{`{"exclusiveMinimum":0,"exclusiveMaximum":100000}`, []string{`0`, `1`, `100000`, `123456.789`}},
	{`{` + d4 + `"minimum":0,"exclusiveMinimum":true,"maximum":5,"exclusiveMaximum":true}`, []string{`0`, `5`, `2`, `-1`}},
	{`{` + d4 + `"minimum":0,"exclusiveMinimum":false}`, []string{`0`, `-0.0001`}},
	{`{"multipleOf":0.01}`, []string{`1.23`, `1.234`, `10`, `0.0000001`}},
	{`{"multipleOf":3}`, []string{`9`, `10`, `12345678901234567891`, `1e21`}},
	{`{"maximum":1e-7}`, []string{`1e-8`, `1e-6`, `0.5`}},
	{`{"minimum":12345678901234567890}`, []string{`12345678901234567889`, `12345678901234567890`}},
	// strings
	{`{"minLength":2,"maxLength":3}`, []string{`"a"`, `"ab"`, `"abcd"`, `"äö"`, `"日本語!"`, `"😀"`, `5`}},
	{`{"maxLength":1000}`, []string{`"` + strings.Repeat("x", 1234) + `"`}},
	{`{"pattern":"^[a-z]+$"}`, []string{`"abc"`, `"aBc"`, `"it's"`, `1`}},
	{`{"pattern":"\\d"}`, []string{`"a1"`, `"ab"`}},
	// arrays
	{`{"minItems":1,"maxItems":2}`, []string{`[]`, `[1]`, `[1,2,3]`, `{}`}},
	{`{"uniqueItems":true}`, []string{`[1,2,3]`, `[1,2,1]`, `[1,1.0]`, `[{"a":1},{"a":1}]`, `[[1],[2],[1]]`, `[]`}},
	{`{"uniqueItems":false}`, []string{`[1,1]`}},
	{`{"items":{"type":"integer"}}`, []string{`[1,2]`, `[1,"a",null]`}},
	{`{"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`, []string{`["a",1]`, `["a","b"]`, `["a",1,2]`, `[]`}},
	{`{"prefixItems":[{"type":"string"}],"items":{"type":"boolean"}}`, []string{`["a",true,false]`, `["a",1]`}},
	{`{` + d7 + `"items":[{"type":"string"}],"additionalItems":false}`, []string{`["a"]`, `["a",1,2]`, `[1]`}},
	{`{` + d7 + `"items":[{"type":"string"}],"additionalItems":{"type":"integer"}}`, []string{`["a",1,"b"]`}},
	{`{` + d7 + `"items":{"minimum":2}}`, []string{`[1,2,3]`}},
	{`{` + d4 + `"items":[{}],"additionalItems":false}`, []string{`[1,2]`}},
	{`{"contains":{"type":"integer"}}`, []string{`[]`, `["a"]`, `["a",1]`, `["a","b"]`}},
	{`{"contains":{"type":"integer"},"minContains":2,"maxContains":3}`, []string{`[1]`, `[1,2]`, `[1,2,3,4]`, `["a",1]`, `[]`, `[1,"x",2,3,4]`}},
	{`{"contains":{"const":1},"minContains":0}`, []string{`[]`, `[2]`}},
	{`{` + d6 + `"contains":{"const":1}}`, []string{`[2,3]`, `[1]`}},
	{`{` + d2019 + `"contains":{"const":1},"minContains":2}`, []string{`[1]`, `[1,1]`}},
	// objects
	{`{"required":["a","b"],"minProperties":1,"maxProperties":2}`, []string{`{}`, `{"a":1}`, `{"a":1,"b":2,"c":3}`, `[]`}},
	{`{"properties":{"a":{"type":"string"},"b":{"minimum":1}},"additionalProperties":false}`, []string{`{"a":"x"}`, `{"a":1,"b":0}`, `{"c":1,"d":2,"a":"x"}`}},
	{`{"patternProperties":{"^x-":{"type":"string"},"y$":{"type":"string"}},"additionalProperties":{"type":"integer"}}`, []string{`{"x-a":"s","b":1}`, `{"x-a":1,"b":"s","x-y":2}`}},
	{`{"propertyNames":{"maxLength":3,"pattern":"^[a-z]"}}`, []string{`{"abc":1}`, `{"abcd":1,"Ab":2}`}},
	{`{"properties":{"o":{"propertyNames":false}}}`, []string{`{"o":{}}`, `{"o":{"k":1}}`}},
	{`{"dependentRequired":{"a":["b","c"]},"dependentSchemas":{"b":{"required":["d"]}}}`, []string{`{}`, `{"a":1}`, `{"a":1,"b":1,"c":1}`, `{"b":1,"d":1}`}},
	{`{` + d7 + `"dependencies":{"a":["b"],"c":{"properties":{"d":{"type":"string"}}}}}`, []string{`{"a":1}`, `{"c":1,"d":2}`, `{"a":1,"b":2}`}},
	{`{` + d4 + `"dependencies":{"a":["b","c"]},"required":["z"]}`, []string{`{"a":1}`}},
	{`{` + d7 + `"dependentRequired":{"a":["b"]}}`, []string{`{"a":1}`}},
	{`{"properties":{"a/b~c":{"type":"string"}}}`, []string{`{"a/b~c":1}`}},
	// applicators
	{`{"allOf":[{"type":"integer"},{"minimum":3}]}`, []string{`4`, `2`, `"x"`, `2.5`}},
	{`{"anyOf":[{"type":"string","minLength":2},{"type":"integer"}]}`, []string{`"ab"`, `"a"`, `1`, `null`}},
	{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, []string{`1`, `3`, `2.5`, `0.5`}},
	{`{"oneOf":[{"const":1},{"const":2},{"type":"integer"}]}`, []string{`1`, `5`, `"x"`}},
	{`{"not":{"type":"string"}}`, []string{`1`, `"s"`}},
	{`{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["x"]},"else":{"required":["y"]}}`, []string{`{"k":"a"}`, `{"k":"b"}`, `{"k":"a","x":1}`, `{"y":1}`}},
	{`{"if":true,"then":{"type":"string"},"else":{"type":"integer"}}`, []string{`1`, `"a"`}},
	{`{"if":false,"then":{"type":"string"},"else":{"type":"integer"}}`, []string{`1`, `"a"`}},
	{`{` + d6 + `"if":{"const":1},"then":false}`, []string{`1`}},
	{`true`, []string{`1`, `{}`}},
	{`false`, []string{`1`, `null`}},
	{`{"properties":{"a":false,"b":true}}`, []string{`{"a":1}`, `{"b":1}`}},
	// references
	{`{"$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"n":{"$ref":"#/$defs/pos"}}}`, []string{`{"n":1}`, `{"n":0}`, `{"n":"x"}`}},
	{`{` + d7 + `"definitions":{"s":{"type":"string"}},"properties":{"n":{"$ref":"#/definitions/s","type":"integer"}}}`, []string{`{"n":"x"}`, `{"n":1}`}},
	{`{"definitions":{"s":{"type":"string"}},"properties":{"n":{"$ref":"#/definitions/s","minLength":2}}}`, []string{`{"n":"x"}`, `{"n":1}`}},
	{`{"$defs":{"a":{"$anchor":"foo","type":"integer"}},"items":{"$ref":"#foo"}}`, []string{`[1,"x"]`}},
	{`{"$id":"https://example.invalid/root.json","$defs":{"b":{"$id":"b.json","type":"string"}},"$ref":"b.json"}`, []string{`"x"`, `1`}},
	{`{"$id":"https://example.invalid/root.json","$defs":{"b":{"$id":"dir/b.json","$defs":{"c":{"$id":"c.json","const":2}},"$ref":"c.json"}},"$ref":"dir/b.json"}`, []string{`2`, `3`}},
	{`{` + d7 + `"definitions":{"a":{"$id":"#item","type":"boolean"}},"items":{"$ref":"#item"}}`, []string{`[true,1]`}},
	{`{` + d4 + `"definitions":{"a":{"id":"#item","type":"boolean"}},"items":{"$ref":"#item"}}`, []string{`[true,1]`}},
	{`{"properties":{"next":{"$ref":"#"}},"type":"object","required":["v"]}`, []string{`{"v":1,"next":{"v":2,"next":{}}}`, `{"v":1,"next":1}`}},
	{`{"$defs":{"a/b":{"type":"null"},"c%d":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c%25d"}}}`, []string{`{"x":null,"y":"s"}`, `{"x":1,"y":2}`}},
	{`{"$defs":{"list":{"items":{"$ref":"#/$defs/list"},"maxItems":2}},"$ref":"#/$defs/list"}`, []string{`[[[1,2,3]]]`, `[[]]`}},
	{`{"$defs":{"loop":{"$ref":"#/$defs/loop"}},"$ref":"#/$defs/loop"}`, []string{`1`}},
	{`{"anyOf":[{"$ref":"#"}]}`, []string{`1`}},
	{`{"$ref":"https://elsewhere.invalid/x.json#/a"}`, []string{`1`}},
	{`{"$ref":"x.json"}`, []string{`1`}},
	{`{"$ref":"#/nope"}`, []string{`1`}},
	{`{"$ref":"#nope"}`, []string{`1`}},
	{`{"$id":"http://a.invalid/x","$ref":"y"}`, []string{`1`}},
	{`{"$id":"urn:example:root","$defs":{"a":{"$anchor":"a","type":"string"}},"$ref":"urn:example:root#a"}`, []string{`1`, `"s"`}},
	{`{"$schema":"https://example.invalid/meta"}`, []string{`1`}},
	{`{"$defs":{"unused":{"$ref":"https://elsewhere.invalid/y"}},"type":"string"}`, []string{`1`}},
	{`{"$defs":{"a":{"$id":"x.json"},"b":{"$id":"x.json"}}}`, []string{`1`}},
	{`{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`, []string{`1`}},
	{`{"$defs":{"a":{"$id":"s.json"}}}`, []string{`1`}},
	{`{"$schema":"%0X"}`, []string{`1`}},
	{`{"$schema":"https://example.invalid/s.json"}`, []string{`1`}},
	// dynamic references
	{`{"$id":"https://example.invalid/tree","$dynamicAnchor":"node","type":"object","properties":{"kids":{"type":"array","items":{"$dynamicRef":"#node"}}}}`, []string{`{"kids":[{"kids":[]}]}`, `{"kids":[1]}`}},
	{`{"$id":"https://example.invalid/strict","$ref":"tree","$dynamicAnchor":"node","unevaluatedProperties":false,"$defs":{"tree":{"$id":"tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"kids":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}`,
		[]string{`{"data":1,"kids":[{"data":2}]}`, `{"kids":[{"extra":1}]}`, `{"extra":1}`}},
	{`{` + d2019 + `"$id":"https://example.invalid/strict","$recursiveAnchor":true,"$ref":"tree","unevaluatedProperties":false,"$defs":{"tree":{"$id":"tree","$recursiveAnchor":true,"type":"object","properties":{"data":true,"kids":{"type":"array","items":{"$recursiveRef":"#"}}}}}}`,
		[]string{`{"data":1,"kids":[{"data":2}]}`, `{"kids":[{"extra":1}]}`}},
	// unevaluated
	{`{"properties":{"a":true},"unevaluatedProperties":false}`, []string{`{"a":1}`, `{"a":1,"b":2}`}},
	{`{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":{"type":"string"}}`, []string{`{"a":1,"b":"x"}`, `{"a":1,"b":2}`}},
	{`{"anyOf":[{"properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"b":true},"required":["b"]}],"unevaluatedProperties":false}`, []string{`{"a":1}`, `{"a":"x","b":1}`, `{"a":1,"b":1}`, `{"a":1,"c":1}`}},
	{`{"if":{"properties":{"k":{"const":1}}},"then":{"properties":{"t":true}},"else":{"properties":{"e":true}},"unevaluatedProperties":false}`, []string{`{"k":1,"t":1}`, `{"k":1,"e":1}`, `{"k":2,"e":1}`}},
	{`{"not":{"not":{"properties":{"a":true}}},"unevaluatedProperties":false}`, []string{`{"a":1}`}},
	{`{"dependentSchemas":{"a":{"properties":{"b":true}}},"unevaluatedProperties":false}`, []string{`{"a":1,"b":2}`, `{"b":2}`}},
	{`{"oneOf":[{"properties":{"a":true}},{"properties":{"b":true},"required":["b"]}],"unevaluatedProperties":false}`, []string{`{"a":1}`, `{"a":1,"b":1}`, `{"c":1}`}},
	{`{"$ref":"#/$defs/base","$defs":{"base":{"properties":{"a":true}}},"unevaluatedProperties":false}`, []string{`{"a":1,"b":1}`}},
	{`{"patternProperties":{"^p":true},"additionalProperties":false,"unevaluatedProperties":false}`, []string{`{"p":1,"q":1}`}},
	{`{"prefixItems":[true],"unevaluatedItems":false}`, []string{`[1]`, `[1,2,3]`}},
	{`{"allOf":[{"prefixItems":[true,true]}],"unevaluatedItems":{"type":"string"}}`, []string{`[1,2,"x"]`, `[1,2,3]`}},
	{`{"contains":{"type":"string"},"unevaluatedItems":false}`, []string{`["a","b"]`, `["a",1]`}},
	{`{"items":true,"unevaluatedItems":false}`, []string{`[1,2]`}},
	{`{` + d2019 + `"items":[true],"unevaluatedItems":false}`, []string{`[1,2]`}},
	{`{` + d2019 + `"contains":{"type":"string"},"unevaluatedItems":false}`, []string{`["a"]`}},
	{`{"properties":{"o":{"properties":{"a":true},"unevaluatedProperties":false}}}`, []string{`{"o":{"a":1,"b":2,"c":3}}`}},
	{`{"unevaluatedProperties":{"minLength":2}}`, []string{`{"a":"xy","b":"x"}`}},
	// formats
	{`{"format":"even"}`, []string{`"ab"`, `"abc"`, `3`}},
	{`{"format":"email"}`, []string{`"a@b.invalid"`, `"nope"`}},
	{`{"format":"date-time"}`, []string{`"2024-01-02T03:04:05Z"`, `1`}},
	{`{"format":"regex"}`, []string{`"^a+$"`, `"("`}},
	{`{"format":"no-such-format"}`, []string{`"x"`}},
	{`{` + d7 + `"format":"even"}`, []string{`"abc"`}},
	{`{` + d4 + `"format":"email"}`, []string{`"nope"`}},
	{`{` + d2019 + `"format":"email"}`, []string{`"nope"`}},
	{`{` + d2020 + `"format":"email"}`, []string{`"nope"`}},
	{`{"type":"string","format":"even","minLength":5}`, []string{`"abc"`}},
	// drafts
	{`{` + d4 + `"const":1,"contains":false,"propertyNames":false,"if":false}`, []string{`2`, `[1]`, `{"a":1}`}},
	{`{` + d6 + `"if":false,"then":false,"else":false}`, []string{`1`}},
	{`{` + d7 + `"dependentSchemas":{"a":false},"unevaluatedProperties":false,"prefixItems":[false]}`, []string{`{"a":1}`, `[1]`}},
	{`{"$schema":"http://json-schema.org/schema#","type":"string"}`, []string{`1`}},
	{`{"$schema":"https://json-schema.org/draft-07/schema","type":"string"}`, []string{`1`}},
	{`{"$defs":{"x":{"$id":"x","$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}},"$ref":"x"}`, []string{`[1,2]`, `["a"]`}},
	{`{` + d7 + `"definitions":{"x":{"$id":"x","$schema":"https://json-schema.org/draft/2020-12/schema","prefixItems":[{"type":"string"}],"items":false}},"$ref":"x"}`, []string{`[1,2]`}},
	{`{"$defs":{"x":{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMinimum":true,"minimum":1}},"$ref":"#/$defs/x"}`, []string{`1`}},
	{`{"$defs":{"x":{"$id":"x","$schema":"https://example.invalid/other"}}}`, []string{`1`}},
	// a role's frontmatter
	{roleSchema, []string{roleOK, `{"$status":"done"}`, `{"$status":"later","summary":"","files":["a","a"],"extra":1}`,
		`{"$status":"blocked","reason":7}`, `{"$status":"blocked"}`}},
}

const roleSchema = `{
 "type":"object",
 "required":["$status","summary"],
 "properties":{
  "$status":{"enum":["done","blocked","later"]},
  "summary":{"type":"string","minLength":1,"maxLength":200},
  "files":{"type":"array","items":{"type":"string","pattern":"^[^/].*"},"uniqueItems":true,"maxItems":50},
  "review":{"$ref":"#/$defs/ref"},
  "score":{"type":"number","minimum":0,"maximum":10}
 },
 "oneOf":[
  {"properties":{"$status":{"const":"done"}}},
  {"properties":{"$status":{"const":"blocked"},"reason":{"type":"string"}},"required":["reason"]},
  {"properties":{"$status":{"const":"later"}}}
 ],
 "additionalProperties":true,
 "$defs":{"ref":{"type":"string","format":"even"}}
}`

const roleOK = `{"$status":"done","summary":"all good","files":["a.go","b.go"],"review":"ABCD","score":7.5}`

func TestDifferential(t *testing.T) {
	for _, c := range diffConfigs {
		for _, tc := range diffCases {
			for _, inst := range tc.instances {
				differ(t, c.name, tc.schema, inst, c.cfg())
			}
		}
	}
}

// differ compares the oracle and this package on one schema and instance.
func differ(t *testing.T, cfgName, schema, instance string, cfg Config) {
	t.Helper()
	odoc, err := Decode([]byte(schema))
	if err != nil {
		return
	}
	ndoc, _ := Decode([]byte(schema))
	const url = "https://example.invalid/s.json"
	os, oerr := oracleCompile(url, odoc, cfg)
	ns, nerr := Compile(url, ndoc, cfg)
	var le *LoadError
	if errors.As(nerr, &le) && strings.Contains(le.URL, "json-schema.org/") {
		return // v6 served json-schema.org from the meta-schemas it embeds; we load nothing
	}
	if oerr != nil {
		switch {
		case oracleMetaError(oerr):
		case nerr == nil:
			t.Errorf("%s %s: oracle fails to compile (%v), Compile does not", cfgName, schema, oerr)
		case strings.HasPrefix(nerr.Error(), "duplicate ") && strings.HasPrefix(oerr.Error(), "duplicate "):
			// v6 names the two places in map order
		case nerr.Error() != oerr.Error() && !oracleCanSay(schema, cfg, nerr.Error()):
			t.Errorf("%s %s: Compile: %v; the oracle: %v", cfgName, schema, nerr, oerr)
		}
		return
	}
	if nerr != nil {
		t.Errorf("%s %s: Compile: %v; the oracle compiles it", cfgName, schema, nerr)
		return
	}
	oinst, err := Decode([]byte(instance))
	if err != nil {
		return
	}
	ninst, _ := Decode([]byte(instance))
	oval, panicked := oracleValidate(os, oinst)
	if panicked {
		return // v6 panics on numbers big.Rat cannot hold (1E1000001)
	}
	nval := ns.Validate(ninst)
	if (oval == nil) != (nval == nil) {
		t.Errorf("%s %s on %s: oracle %v, Validate %v", cfgName, schema, instance, oval, nval)
		return
	}
	if oval == nil {
		return
	}
	want, got := withoutFormatReasons(oracleViolations(oval)), withoutFormatReasons(Violations(nval))
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s %s on %s:\n got  %q\n want %q", cfgName, schema, instance, got, want)
	}
}

// withoutFormatReasons cuts the reason from the lines of a standard
// format, "… is not valid email: <reason>": the reasons are package
// format's own words, not v6's; the verdict and the rest of the line are
// compared. A caller's format (Config.Formats) keeps its reason.
func withoutFormatReasons(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l
		if j := strings.LastIndex(l, " is not valid "); j >= 0 {
			name, _, ok := strings.Cut(l[j+len(" is not valid "):], ":")
			if _, std := format.Lookup(name); ok && std {
				out[i] = l[:j] + " is not valid " + name
			}
		}
	}
	return out
}

func oracleValidate(s *oracleSchema, v any) (err error, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	return s.Validate(v), false
}

func TestDifferentialSchemaURLs(t *testing.T) {
	for _, u := range []string{
		"http://json-schema.org/draft-04/schema#foo", "https://json-schema.org/draft-06/schema#", "#0", "",
		"https://json-schema.org/draft/2020-12/schema#", "http://json-schema.org/draft/2019-09/schema",
		"https://example.invalid/meta", "json-schema.org/schema",
	} {
		differ(t, "annotate", `{"$schema":"`+u+`","const":1,"exclusiveMinimum":true,"minimum":2,"if":false,"else":false}`, `1`, Config{})
	}
}

// oracleCanSay reports whether the oracle fails to compile schema with
// message msg in one of some tries: where a document has several faults,
// which one v6 reports depends on map order.
func oracleCanSay(schema string, cfg Config, msg string) bool {
	for range 50 {
		doc, _ := Decode([]byte(schema))
		if _, err := oracleCompile("https://example.invalid/s.json", doc, cfg); err != nil && err.Error() == msg {
			return true
		}
	}
	return false
}
