package jsonschema

import (
	"strings"
	"testing"
)

// FuzzDifferential mutates the schemas and instances of the differential
// table and compares this package with the oracle on each pair.
func FuzzDifferential(f *testing.F) {
	for _, tc := range diffCases {
		for _, inst := range tc.instances {
			f.Add(tc.schema, inst, false)
		}
	}
	f.Fuzz(func(t *testing.T, schema, instance string, assert bool) {
		// The standard formats are package format's, tested there.
		rest := strings.NewReplacer(`"format":"even"`, "", `"format":"regex"`, "").Replace(schema)
		if strings.Contains(rest, "format") {
			t.Skip()
		}
		c := diffConfigs[0]
		if assert {
			c = diffConfigs[1]
		}
		differ(t, c.name, schema, instance, c.cfg())
	})
}
