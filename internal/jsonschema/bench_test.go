package jsonschema

import "testing"

// BenchmarkCompileValidate compiles a typical role frontmatter schema and
// validates one output against it, as a step does.
func BenchmarkCompileValidate(b *testing.B) {
	schema, inst := benchInputs(b)
	cfg := diffConfigs[1].cfg()
	b.ReportAllocs()
	for b.Loop() {
		s, err := Compile("uwf:///roles/worker.json", schema, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Validate(inst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileValidateOracle is the same with v6, the validator this
// package replaced.
func BenchmarkCompileValidateOracle(b *testing.B) {
	schema, inst := benchInputs(b)
	cfg := diffConfigs[1].cfg()
	b.ReportAllocs()
	for b.Loop() {
		s, err := oracleCompile("uwf:///roles/worker.json", schema, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Validate(inst); err != nil {
			b.Fatal(err)
		}
	}
}

func benchInputs(b *testing.B) (schema, inst any) {
	schema, err := Decode([]byte(roleSchema))
	if err != nil {
		b.Fatal(err)
	}
	inst, err = Decode([]byte(roleOK))
	if err != nil {
		b.Fatal(err)
	}
	return schema, inst
}
