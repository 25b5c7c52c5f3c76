package jsonschema

import (
	"slices"
	"testing"
)

func TestMetaViolations(t *testing.T) {
	tests := []struct {
		name   string
		drafts []string // nil: every draft
		schema string
		want   []string // nil: valid
	}{
		{"empty object", nil, `{}`, nil},
		{"unknown keywords", nil, `{"x-role":5,"properties":{"a":{"x":[]}}}`, nil},
		{"typical", nil, `{"type":"object","required":["a"],"properties":{"a":{"type":["string","null"],"enum":["x",null]},"n":{"type":"integer","minimum":0,"multipleOf":0.5}},"additionalProperties":false}`, nil},
		{"boolean schema", []string{"2020-12", "2019-09", "draft-07", "draft-06"}, `true`, nil},
		{"boolean schema, draft-04", []string{"draft-04"}, `true`,
			[]string{"at /: got boolean, want a schema object"}},
		{"not a schema", []string{"2020-12"}, `5`,
			[]string{"at /: got number, want a schema (object or boolean)"}},
		{"type a number", nil, `{"type":5}`,
			[]string{"at /type: got number, want a type name or an array of type names"}},
		{"type unknown name", nil, `{"type":"text"}`,
			[]string{"at /type: 'text' is not a type name (array, boolean, integer, null, number, object, string)"}},
		{"type array", nil, `{"type":["string",1,"string"]}`,
			[]string{"at /type/1: got number, want a type name", "at /type: items 0 and 2 are equal"}},
		{"type empty array", nil, `{"type":[]}`,
			[]string{"at /type: got an empty array, want at least one type name"}},
		{"counts", nil, `{"minLength":-1,"maxItems":1.5,"minProperties":"2","maxLength":1e400,"minItems":2.0}`,
			[]string{
				"at /maxItems: got 1.5, want a non-negative integer",
				"at /minLength: got -1, want a non-negative integer",
				"at /minProperties: got string, want a non-negative integer",
			}},
		{"exponent beyond math/big", []string{"2019-09"}, `{"minLength":1e99999999,"maximum":1e99999999}`,
			[]string{"at /minLength: got 1e99999999 (exponent too large), want a non-negative integer"}},
		{"multipleOf", nil, `{"multipleOf":0,"properties":{"a":{"multipleOf":-2}}}`,
			[]string{"at /multipleOf: got 0, want a number greater than 0", "at /properties/a/multipleOf: got -2, want a number greater than 0"}},
		{"exclusive bounds, draft-04", []string{"draft-04"}, `{"exclusiveMaximum":3,"exclusiveMinimum":true,"minimum":1}`,
			[]string{"at /: exclusiveMaximum needs maximum", "at /exclusiveMaximum: got number, want boolean"}},
		{"exclusive bounds", []string{"2020-12", "draft-06"}, `{"exclusiveMaximum":true}`,
			[]string{"at /exclusiveMaximum: got boolean, want number"}},
		{"required", []string{"2020-12", "draft-07"}, `{"required":[],"properties":{"a":{"required":["x",1,"x"]}}}`,
			[]string{"at /properties/a/required/1: got number, want string", "at /properties/a/required: 'x' is listed twice (items 0 and 2)"}},
		{"required empty, draft-04", []string{"draft-04"}, `{"required":[]}`,
			[]string{"at /required: got an empty array, want at least one string"}},
		{"enum", []string{"draft-07", "draft-04"}, `{"enum":[],"properties":{"a":{"enum":[1,{"b":[2]},1.0]}}}`,
			[]string{"at /enum: got an empty array, want at least one value", "at /properties/a/enum: values 0 and 2 are equal"}},
		{"enum, later drafts", []string{"2020-12", "2019-09"}, `{"enum":[],"properties":{"a":{"enum":[1,1.0]},"b":{"enum":{}}}}`,
			[]string{"at /properties/b/enum: got object, want array"}},
		{"pattern", nil, `{"pattern":"(","properties":{"p":{"pattern":5}}}`,
			[]string{"at /pattern: '(' is not a regular expression: missing closing )", "at /properties/p/pattern: got number, want string"}},
		{"patternProperties names", []string{"2020-12", "draft-07"}, `{"patternProperties":{"[":{},"^a":{"type":1}}}`,
			[]string{"at /patternProperties: property name '[' is not a regular expression: missing closing ]", "at /patternProperties/^a/type: got number, want a type name or an array of type names"}},
		{"patternProperties names unchecked", []string{"draft-06", "draft-04"}, `{"patternProperties":{"[":{}}}`, nil},
		{"escaped pointer", nil, `{"properties":{"a/b":{"type":1},"c~d":{"format":2}}}`,
			[]string{"at /properties/a~1b/type: got number, want a type name or an array of type names", "at /properties/c~0d/format: got number, want string"}},
		{"every position", []string{"2020-12"}, `{"$defs":{"d":1},"allOf":[2],"anyOf":[],"not":3,"if":4,"contains":5,"propertyNames":6,"unevaluatedItems":7,"dependentSchemas":{"x":8},"prefixItems":[9],"items":[10],"contentSchema":11}`,
			[]string{
				"at /$defs/d: got number, want a schema (object or boolean)",
				"at /allOf/0: got number, want a schema (object or boolean)",
				"at /anyOf: got an empty array, want at least one schema",
				"at /contains: got number, want a schema (object or boolean)",
				"at /contentSchema: got number, want a schema (object or boolean)",
				"at /dependentSchemas/x: got number, want a schema (object or boolean)",
				"at /if: got number, want a schema (object or boolean)",
				"at /items: got array, want a schema (object or boolean)",
				"at /not: got number, want a schema (object or boolean)",
				"at /prefixItems/0: got number, want a schema (object or boolean)",
				"at /propertyNames: got number, want a schema (object or boolean)",
				"at /unevaluatedItems: got number, want a schema (object or boolean)",
			}},
		{"items array", []string{"2019-09", "draft-07"}, `{"items":[{"type":1},true],"additionalItems":5}`,
			[]string{"at /additionalItems: got number, want a schema (object or boolean)", "at /items/0/type: got number, want a type name or an array of type names"}},
		{"items, draft-04", []string{"draft-04"}, `{"items":true,"additionalItems":true,"additionalProperties":{"items":[]}}`,
			[]string{"at /additionalProperties/items: got an empty array, want at least one schema", "at /items: got boolean, want a schema object or an array of schemas"}},
		{"dependencies", []string{"2020-12", "draft-06"}, `{"dependencies":{"a":["b","b"],"c":5,"d":{"type":"x"}}}`,
			[]string{
				"at /dependencies/a: 'b' is listed twice (items 0 and 1)",
				"at /dependencies/c: got number, want a schema (object or boolean) or an array of property names",
				"at /dependencies/d/type: 'x' is not a type name (array, boolean, integer, null, number, object, string)",
			}},
		{"dependencies empty, draft-04", []string{"draft-04"}, `{"dependencies":{"a":[]}}`,
			[]string{"at /dependencies/a: got an empty array, want at least one string"}},
		{"new keywords ignored by old drafts", []string{"draft-04"}, `{"const":1,"contains":2,"if":3,"$id":4,"$anchor":5,"$defs":6,"propertyNames":7}`, nil},
		{"$ref", []string{"2020-12", "draft-06"}, `{"$ref":"a\\b"}`,
			[]string{`at /$ref: 'a\\b' is not a URI reference: it contains a backslash`}},
		{"$ref, draft-04", []string{"draft-04"}, `{"$ref":"a\\b"}`, nil},
		{"$id fragment", []string{"2020-12", "2019-09"}, `{"properties":{"a":{"$id":"x#y"},"b":{"$id":"z#"}}}`,
			[]string{"at /properties/a/$id: 'x#y' has a non-empty fragment"}},
		{"$id fragment, draft-07", []string{"draft-07"}, `{"properties":{"a":{"$id":"x#y"}}}`, nil},
		{"$schema", nil, `{"properties":{"a":{"$schema":"schema.json"}}}`,
			[]string{"at /properties/a/$schema: 'schema.json' is not an absolute URI: it has no scheme"}},
		{"bad IPv6 host", []string{"2020-12"}, `{"$ref":"http://[fe80::1%25en0]/x"}`,
			[]string{"at /$ref: 'http://[fe80::1%25en0]/x' is not a URI reference: bad IPv6 host"}},
		{"anchor, 2020-12", []string{"2020-12"}, `{"$anchor":"_a","$defs":{"a":{"$anchor":"a:b"},"b":{"$dynamicAnchor":"1"}}}`,
			[]string{
				"at /$defs/a/$anchor: 'a:b' is not an anchor name (a letter or '_', then letters, digits, '-', '.' or '_')",
				"at /$defs/b/$dynamicAnchor: '1' is not an anchor name (a letter or '_', then letters, digits, '-', '.' or '_')",
			}},
		{"anchor, 2019-09", []string{"2019-09"}, `{"$anchor":"_a","$defs":{"a":{"$anchor":"a:b"},"b":{"$dynamicAnchor":"1"}}}`,
			[]string{"at /$anchor: '_a' is not an anchor name (a letter, then letters, digits, '-', '.', ':' or '_')"}},
		{"$recursiveAnchor", []string{"2019-09"}, `{"$recursiveAnchor":"a"}`,
			[]string{"at /$recursiveAnchor: got string, want boolean"}},
		{"$recursiveAnchor, 2020-12", []string{"2020-12"}, `{"$recursiveAnchor":true}`,
			[]string{"at /$recursiveAnchor: got boolean, want string"}},
		{"$vocabulary", []string{"2020-12", "2019-09"}, `{"$vocabulary":{"core":true,"https://x.invalid/v":1}}`,
			[]string{
				"at /$vocabulary: vocabulary 'core' is not an absolute URI: it has no scheme",
				"at /$vocabulary/https:~1~1x.invalid~1v: got number, want boolean",
			}},
		{"annotations", []string{"2020-12"}, `{"title":1,"description":true,"deprecated":"no","readOnly":0,"examples":{},"$comment":[]}`,
			[]string{
				"at /$comment: got array, want string",
				"at /deprecated: got string, want boolean",
				"at /description: got boolean, want string",
				"at /examples: got object, want array",
				"at /readOnly: got number, want boolean",
				"at /title: got number, want string",
			}},
		{"annotations, draft-06", []string{"draft-06"}, `{"deprecated":"no","readOnly":0,"examples":{},"$comment":[]}`, nil},
		{"embedded draft-04 resource", []string{"2020-12", "draft-07"}, `{"properties":{"a":{"id":"https://x.invalid/a","$schema":"http://json-schema.org/draft-04/schema#","exclusiveMinimum":true,"items":{"minimum":true}},"b":{"exclusiveMinimum":true}}}`,
			[]string{
				"at /properties/a: exclusiveMinimum needs minimum",
				"at /properties/a/items/minimum: got boolean, want number",
				"at /properties/b/exclusiveMinimum: got boolean, want number",
			}},
		{"embedded, $schema with a fragment", []string{"2020-12"}, `{"$defs":{"a":{"$id":"https://x.invalid/a","$schema":"http://json-schema.org/draft-07/schema#/x","enum":[]},"b":{"$id":"https://x.invalid/b","$schema":"json-schema.org/draft-07/schema","enum":[]}}}`,
			[]string{
				"at /$defs/a/enum: got an empty array, want at least one value",
				"at /$defs/b/$schema: 'json-schema.org/draft-07/schema' is not an absolute URI: it has no scheme",
				"at /$defs/b/enum: got an empty array, want at least one value",
			}},
		{"not embedded without its draft's id", []string{"2020-12"}, `{"$defs":{"a":{"$id":"https://x.invalid/a","$schema":"http://json-schema.org/draft-04/schema#","exclusiveMinimum":true}}}`,
			[]string{"at /$defs/a/exclusiveMinimum: got boolean, want number"}},
		{"dependentRequired", []string{"2019-09"}, `{"dependentRequired":{"a":[1],"b":"c"}}`,
			[]string{"at /dependentRequired/a/0: got number, want string", "at /dependentRequired/b: got string, want an array of strings"}},
	}
	for _, tt := range tests {
		drafts := tt.drafts
		if drafts == nil {
			drafts = metaDrafts
		}
		for _, draft := range drafts {
			t.Run(tt.name+"/"+draft, func(t *testing.T) {
				doc, err := Decode([]byte(tt.schema))
				if err != nil {
					t.Fatal(err)
				}
				got := metaViolations(doc, draft)
				if !slices.Equal(got, tt.want) {
					t.Errorf("metaViolations(%s, %s) =\n%q\nwant\n%q", tt.schema, draft, got, tt.want)
				}
				// The oracle must agree on which values are wrong.
				if diff, _ := compareWithOracle(doc, draft); diff != "" {
					t.Errorf("%s", diff)
				}
			})
		}
	}
}

func BenchmarkMetaViolations(b *testing.B) {
	doc, err := Decode([]byte(`{
		"type": "object",
		"required": ["role", "status", "summary"],
		"additionalProperties": false,
		"properties": {
			"role": {"type": "string", "enum": ["planner", "coder", "reviewer", "tester"]},
			"status": {"type": "string", "enum": ["todo", "doing", "done", "blocked"]},
			"summary": {"type": "string", "minLength": 1, "maxLength": 200},
			"details": {"type": "string"},
			"priority": {"type": "integer", "minimum": 0, "maximum": 5},
			"labels": {"type": "array", "items": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"}, "uniqueItems": true},
			"estimate": {"type": "number", "exclusiveMinimum": 0},
			"done": {"type": "boolean"},
			"links": {"type": "array", "items": {"type": "string", "format": "uri"}},
			"review": {
				"type": "object",
				"required": ["verdict"],
				"properties": {
					"verdict": {"enum": ["approve", "request-changes"]},
					"comments": {"type": "array", "items": {"type": "object", "properties": {"file": {"type": "string"}, "line": {"type": "integer", "minimum": 1}}}}
				}
			}
		}
	}`))
	if err != nil {
		b.Fatal(err)
	}
	if v := metaViolations(doc, "2020-12"); v != nil {
		b.Fatalf("typical schema breaks its meta-schema: %q", v)
	}
	b.Run("own", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			metaViolations(doc, "2020-12")
		}
	})
	// The same check by v6's compiled meta-schema, for a same-run ratio.
	b.Run("v6", func(b *testing.B) {
		meta, err := oracleMeta("2020-12")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := meta.Validate(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
