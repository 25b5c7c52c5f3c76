package objects

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkCanonicalize(b *testing.B) {
	in := []byte(`{"start":"0123456789ABC","prev":null,"role":"reviewer","output":"0123456789ABD",
		"detail":"0123456789ABE","agent":"pipe","edgePrompt":"` + strings.Repeat("review the change ", 20) + `",
		"startedAtMs":1700000000000,"completedAtMs":1700000012345,"cwd":"/home/u/src/project",
		"usage":{"turns":3,"inputTokens":12345,"outputTokens":678,"duration":12.345}}`)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Canonicalize(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPut(b *testing.B) {
	s := newMemStore(b)
	typ := mustPutSchema(b, s, `{"type":"object","properties":{"n":{"type":"integer"},"ref":{"type":"string","format":"uwf_ref"}}}`)
	i := 0
	for b.Loop() {
		if _, err := s.Put(typ, map[string]any{"n": i, "ref": "0123456789ABC"}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkGet(b *testing.B) {
	s := newMemStore(b)
	var refs []Ref
	for i := range 1000 {
		r, err := s.PutText(fmt.Sprint(i))
		if err != nil {
			b.Fatal(err)
		}
		refs = append(refs, r)
	}
	i := 0
	for b.Loop() {
		if _, err := s.Get(refs[i%len(refs)].Alias); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
