package jsonschema

import (
	"fmt"
	"net/url"
	"strings"
)

// Drafts by their version number, as the old validator numbered them.
const (
	draft4    = 4
	draft6    = 6
	draft7    = 7
	draft2019 = 2019
	draft2020 = 2020
)

// draftName is the name metaViolations takes.
func draftName(d int) string {
	switch d {
	case draft4:
		return "draft-04"
	case draft6:
		return "draft-06"
	case draft7:
		return "draft-07"
	case draft2019:
		return "2019-09"
	}
	return "2020-12"
}

// draftOf returns the draft a "$schema" URL (without fragment) names, http
// or https; 0 for any other URL.
func draftOf(u string) int {
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "https://")
	}
	switch u {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema":
		return draft2020
	case "json-schema.org/draft/2019-09/schema":
		return draft2019
	case "json-schema.org/draft-07/schema":
		return draft7
	case "json-schema.org/draft-06/schema":
		return draft6
	case "json-schema.org/draft-04/schema":
		return draft4
	}
	return 0
}

// idKeyword is the keyword that names a resource.
func idKeyword(d int) string {
	if d == draft4 {
		return "id"
	}
	return "$id"
}

// Where subschemas sit in a schema object, by draft: keywords whose value
// is a schema, an array of schemas, or an object of schemas.
func subschemaKeywords(d int) (single, arrays, objects []string) {
	single = []string{"not", "additionalProperties", "items", "additionalItems"}
	arrays = []string{"allOf", "anyOf", "oneOf", "items"}
	objects = []string{"definitions", "properties", "patternProperties", "dependencies"}
	if d >= draft6 {
		single = append(single, "propertyNames", "contains")
	}
	if d >= draft7 {
		single = append(single, "if", "then", "else")
	}
	if d >= draft2019 {
		single = append(single, "unevaluatedProperties", "unevaluatedItems", "contentSchema")
		objects = append(objects, "$defs", "dependentSchemas")
	}
	if d >= draft2020 {
		arrays = append(arrays, "prefixItems")
	}
	return single, arrays, objects
}

// draftFromSchema returns the draft a "$schema" value names. at is where
// it stands, for messages; doc is the document's URL. Any URL but the
// drafts' is refused: nothing is loaded.
func draftFromSchema(s, at, doc string, refuse func(string) error) (int, error) {
	u, frag, _ := strings.Cut(s, "#")
	// With a fragment, only the drafts' own URLs name them: v6 loaded the
	// meta-schema document, which it had only for http and https.
	web := strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
	if d := draftOf(u); d != 0 && (frag == "" || web) {
		return d, nil
	}
	if _, err := url.Parse(u); err != nil {
		return 0, fmt.Errorf("invalid $schema in %q: %w", at, err)
	}
	if u == doc {
		return 0, fmt.Errorf("draft %q is not supported", u)
	}
	return 0, &LoadError{URL: u, Err: refuse(u)}
}
