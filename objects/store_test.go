package objects

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// newMemStore returns a Store on a new repository whose alias index is
// kept in memory only.
func newMemStore(t testing.TB) *Store {
	t.Helper()
	_, gitDir := newGitRepo(t)
	return Open(mustStorer(t, gitDir), "")
}

func mustPutSchema(t testing.TB, s *Store, schema string) Alias {
	t.Helper()
	r, err := s.PutSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("PutSchema(%s): %v", schema, err)
	}
	return r.Alias
}

func mustPut(t testing.TB, s *Store, typ Alias, payload any) Ref {
	t.Helper()
	r, err := s.Put(typ, payload)
	if err != nil {
		t.Fatalf("Put(%s, %v): %v", typ, payload, err)
	}
	return r
}

func TestPutGetRoundTrip(t *testing.T) {
	s := newMemStore(t)
	typ := mustPutSchema(t, s, `{"title":"pair","type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"}}}`)
	tests := []struct {
		name    string
		payload any
		want    string
	}{
		{"map", map[string]any{"b": "x", "a": 1.5}, `{"a":1.5,"b":"x"}`},
		{"struct", struct {
			B string  `json:"b"`
			A float64 `json:"a"`
		}{"<&>", 1e21}, `{"a":1e+21,"b":"<&>"}`},
		{"raw", json.RawMessage(`{ "a" : 0.000001 }`), `{"a":0.000001}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustPut(t, s, typ, tt.payload)
			if r.OID != gitobj.ComputeHash(gitobj.BlobObject, []byte(`{"payload":`+tt.want+`,"type":"`+string(typ)+`"}`)) {
				t.Fatalf("unexpected oid %s", r.OID)
			}
			n, err := s.Get(r.Alias)
			if err != nil {
				t.Fatal(err)
			}
			if n.Alias != r.Alias || n.OID != r.OID || n.Type != typ || string(n.Payload) != tt.want {
				t.Fatalf("Get = %+v, want alias %s oid %s payload %s", n, r.Alias, r.OID, tt.want)
			}
			var m map[string]any
			if err := n.Decode(&m); err != nil {
				t.Fatal(err)
			}
			n2, err := s.GetOID(r.OID)
			if err != nil || n2.Alias != r.Alias || n2.OID != r.OID {
				t.Fatalf("GetOID = %+v, %v", n2, err)
			}
			if ok, err := s.Has(r.Alias); !ok || err != nil {
				t.Fatalf("Has = %v, %v", ok, err)
			}
		})
	}
}

func TestIdenticalNodeIdenticalOID(t *testing.T) {
	a, b := newMemStore(t), newMemStore(t)
	ra, err := a.PutText("hello")
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.PutText("hello")
	if err != nil {
		t.Fatal(err)
	}
	ra2, err := a.PutText("hello")
	if err != nil {
		t.Fatal(err)
	}
	if ra != rb || ra != ra2 {
		t.Fatalf("same node, different refs: %v %v %v", ra, rb, ra2)
	}
	rc, _ := a.PutText("hello!")
	if rc.Alias == ra.Alias || rc.OID == ra.OID {
		t.Fatal("different nodes share a ref")
	}
	m1, _ := a.MetaSchema()
	m2, _ := b.MetaSchema()
	if m1 != m2 || m1.Alias != MetaSchemaAlias() {
		t.Fatalf("meta-schema refs differ: %v %v", m1, m2)
	}
}

func TestGetMissing(t *testing.T) {
	s := newMemStore(t)
	_, err := s.Get("0123456789ABC")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get missing: %v", err)
	}
	if ok, err := s.Has("0123456789ABC"); ok || err != nil {
		t.Fatalf("Has missing = %v, %v", ok, err)
	}
	if _, err := s.GetOID(gitobj.NewHash("0123456789012345678901234567890123456789")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetOID missing: %v", err)
	}
}

func TestValidationErrors(t *testing.T) {
	s := newMemStore(t)
	typ := mustPutSchema(t, s, `{"title":"person","type":"object","required":["name"],"properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"additionalProperties":false}`)
	text, err := s.PutText("not a schema")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		typ       Alias
		payload   any
		wantIs    error
		wantViols []string // substrings, one per violation, in order
	}{
		{name: "ok", typ: typ, payload: map[string]any{"name": "a", "age": 3}},
		{name: "missing and wrong", typ: typ, payload: map[string]any{"age": -1, "x": 1},
			wantViols: []string{"at /: missing property", "at /age: minimum", "at /: additional properties"}},
		{name: "wrong type", typ: typ, payload: "str", wantViols: []string{"at /: "}},
		{name: "typed by non-schema", typ: text.Alias, payload: "x", wantIs: ErrNotSchema},
		{name: "unknown type", typ: "0123456789ABC", payload: "x", wantIs: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Put(tt.typ, tt.payload)
			verr := s.Validate(tt.typ, tt.payload)
			if (err == nil) != (verr == nil) {
				t.Fatalf("Put error %v but Validate error %v", err, verr)
			}
			switch {
			case tt.wantIs != nil:
				if !errors.Is(err, tt.wantIs) {
					t.Fatalf("error = %v, want %v", err, tt.wantIs)
				}
			case tt.wantViols == nil:
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			default:
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("error = %v, want *ValidationError", err)
				}
				if ve.Type != tt.typ || ve.Title != "person" {
					t.Errorf("ValidationError type/title = %s/%s", ve.Type, ve.Title)
				}
				if len(ve.Violations) != len(tt.wantViols) {
					t.Fatalf("violations = %q, want %d", ve.Violations, len(tt.wantViols))
				}
				for i, v := range ve.Violations {
					if !strings.HasPrefix(v, tt.wantViols[i]) {
						t.Errorf("violation %d = %q, want prefix %q", i, v, tt.wantViols[i])
					}
				}
				lines := strings.Split(ve.Error(), "\n")
				if len(lines) != 1+len(ve.Violations) || !strings.Contains(lines[0], string(tt.typ)) {
					t.Errorf("Error() = %q", ve.Error())
				}
			}
		})
	}
}

func TestPutSchemaRejects(t *testing.T) {
	s := newMemStore(t)
	tests := []struct{ name, schema string }{
		{"not a schema", `42`},
		{"bad type keyword", `{"type":"strung"}`},
		{"bad title", `{"title":5}`},
		{"bad regex", `{"pattern":"("}`},
		{"remote ref", `{"$ref":"https://example.com/schema.json"}`},
		{"relative ref", `{"$ref":"other.json"}`},
		{"file ref", `{"$ref":"file:///etc/passwd"}`},
		{"unknown draft", `{"$schema":"https://example.com/my-draft"}`},
		{"dangling local ref", `{"$ref":"#/$defs/missing"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.PutSchema(json.RawMessage(tt.schema))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("PutSchema(%s) error = %v, want *ValidationError", tt.schema, err)
			}
			if ve.Type != MetaSchemaAlias() || len(ve.Violations) == 0 {
				t.Fatalf("ValidationError = %+v", ve)
			}
		})
	}
	for _, ok := range []string{`true`, `false`, `{}`, `{"$defs":{"a":{"type":"string"}},"$ref":"#/$defs/a"}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`} {
		if _, err := s.PutSchema(json.RawMessage(ok)); err != nil {
			t.Errorf("PutSchema(%s): %v", ok, err)
		}
	}
}

func TestRefFormat(t *testing.T) {
	s := newMemStore(t)
	for _, f := range []string{FormatRef, FormatRefUpstream} {
		typ := mustPutSchema(t, s, `{"type":"object","properties":{"r":{"format":"`+f+`"}}}`)
		tests := []struct {
			r  any
			ok bool
		}{
			{"0123456789ABC", true},
			{"0123456789abc", false},
			{"G123456789ABC", false},
			{"short", false},
			{5, true}, // formats only constrain strings
		}
		for _, tt := range tests {
			err := s.Validate(typ, map[string]any{"r": tt.r})
			if (err == nil) != tt.ok {
				t.Errorf("%s: Validate(r=%v) = %v, want ok=%v", f, tt.r, err, tt.ok)
			}
		}
	}
}

// graph builds: leaf text nodes, a list node referring to them, and a root
// referring to the list, a missing node and (through $ref) a leaf.
func buildGraph(t *testing.T, s *Store) (root, list Ref, leaves []Ref, missing Alias) {
	t.Helper()
	listT := mustPutSchema(t, s, `{"title":"list","type":"object","properties":{"items":{"type":"array","items":{"type":"string","format":"uwf_ref"}},"n":{"type":"integer"}}}`)
	rootT := mustPutSchema(t, s, `{"title":"root","type":"object","$defs":{"ref":{"type":"string","format":"ocas_ref"}},
		"properties":{"list":{"$ref":"#/$defs/ref"},"maybe":{"anyOf":[{"type":"null"},{"type":"string","format":"uwf_ref"}]},
		"tuple":{"prefixItems":[{"type":"string"},{"format":"uwf_ref"}]},"note":{"type":"string"}},
		"additionalProperties":{"format":"uwf_ref"}}`)
	for _, txt := range []string{"a", "b", "c"} {
		r, err := s.PutText(txt)
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, r)
	}
	missing = AliasOf([]byte("nothing stored"))
	list = mustPut(t, s, listT, map[string]any{"items": []string{string(leaves[1].Alias), string(leaves[0].Alias), string(leaves[1].Alias)}, "n": 3})
	root = mustPut(t, s, rootT, map[string]any{
		"list":  string(list.Alias),
		"maybe": nil,
		"tuple": []string{string(leaves[0].Alias), string(leaves[2].Alias)},
		"note":  string(leaves[0].Alias), // not a ref position
		"zz":    string(missing),
	})
	return root, list, leaves, missing
}

func TestRefsWalkExpand(t *testing.T) {
	s := newMemStore(t)
	root, list, leaves, missing := buildGraph(t, s)
	rootNode, err := s.Get(root.Alias)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := s.Refs(rootNode)
	if err != nil {
		t.Fatal(err)
	}
	// canonical key order: list, maybe, note, tuple, zz
	if want := []Alias{list.Alias, leaves[2].Alias, missing}; !slices.Equal(refs, want) {
		t.Fatalf("Refs(root) = %v, want %v", refs, want)
	}
	listNode, _ := s.Get(list.Alias)
	refs, _ = s.Refs(listNode)
	if want := []Alias{leaves[1].Alias, leaves[0].Alias}; !slices.Equal(refs, want) {
		t.Fatalf("Refs(list) = %v, want %v (deduped, first-seen)", refs, want)
	}
	leafNode, _ := s.Get(leaves[0].Alias)
	if refs, _ := s.Refs(leafNode); len(refs) != 0 {
		t.Fatalf("Refs(leaf) = %v: type links are not refs", refs)
	}

	walk, err := s.Walk(root.Alias)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Alias{root.Alias, list.Alias, leaves[2].Alias, leaves[1].Alias, leaves[0].Alias}; !slices.Equal(walk, want) {
		t.Fatalf("Walk = %v, want %v", walk, want)
	}
	if _, err := s.Walk(missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Walk(missing) = %v", err)
	}

	got, err := s.Expand(root.Alias)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"list":  map[string]any{"items": []any{"b", "a", "b"}, "n": 3.0},
		"maybe": nil,
		"tuple": []any{string(leaves[0].Alias), "c"},
		"note":  string(leaves[0].Alias),
		"zz":    string(missing),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Expand = %#v\nwant %#v", got, want)
	}
}

func TestResolvePrefix(t *testing.T) {
	s := newMemStore(t)
	// Store texts until two aliases share a 4-character prefix.
	byPrefix := map[string][]Alias{}
	var amb string
	var single Alias
	for i := 0; amb == "" || single == ""; i++ {
		r, err := s.PutText(strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/26))
		if err != nil {
			t.Fatal(err)
		}
		p := string(r.Alias[:4])
		byPrefix[p] = append(byPrefix[p], r.Alias)
		if len(byPrefix[p]) == 2 {
			amb = p
		}
		if i == 0 {
			single = r.Alias
		}
		if i > 100000 {
			t.Fatal("no shared prefix found")
		}
	}
	tests := []struct {
		prefix  string
		want    Alias
		wantErr error
	}{
		{prefix: string(single), want: single},
		{prefix: strings.ToLower(string(single[:12])), want: single},
		{prefix: "0000000", wantErr: ErrNotFound},
		{prefix: "abc"},
		{prefix: "G000"},
	}
	for _, tt := range tests {
		got, err := s.ResolvePrefix(tt.prefix)
		if tt.want != "" {
			if err != nil || got != tt.want {
				t.Errorf("ResolvePrefix(%s) = %s, %v, want %s", tt.prefix, got, err, tt.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("ResolvePrefix(%s) = %s, want error", tt.prefix, got)
		}
		if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
			t.Errorf("ResolvePrefix(%s) error = %v, want %v", tt.prefix, err, tt.wantErr)
		}
	}
	_, err := s.ResolvePrefix(amb)
	var ae *AmbiguousPrefixError
	if !errors.As(err, &ae) || ae.Prefix != amb || len(ae.Matches) < 2 {
		t.Fatalf("ResolvePrefix(%s) = %v, want *AmbiguousPrefixError", amb, err)
	}
}

func TestAliasCollision(t *testing.T) {
	s := newMemStore(t)
	a, _ := s.PutText("a")
	b, _ := s.PutText("b")
	// A wrong claim is skipped by verification.
	if err := s.Learn(a.Alias, b.OID); err != nil {
		t.Fatal(err)
	}
	if err := s.Learn(a.Alias, gitobj.NewHash("0123456789012345678901234567890123456789")); err != nil {
		t.Fatal(err)
	}
	n, err := s.Get(a.Alias)
	if err != nil || n.OID != a.OID {
		t.Fatalf("Get with wrong claims = %+v, %v", n, err)
	}
	// A real collision: make every blob hash to the same alias.
	s.aliasOf = func([]byte) Alias { return a.Alias }
	if err := s.Learn(a.Alias, b.OID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(a.Alias)
	var ce *AliasCollisionError
	if !errors.As(err, &ce) || ce.Alias != a.Alias || !slices.Contains(ce.OIDs, a.OID) || !slices.Contains(ce.OIDs, b.OID) {
		t.Fatalf("Get = %v, want *AliasCollisionError with both oids", err)
	}
	if err := s.Learn("bad", a.OID); err == nil {
		t.Fatal("Learn accepted a bad alias")
	}
}

func TestSchemas(t *testing.T) {
	s := newMemStore(t)
	b := mustPutSchema(t, s, `{"title":"b"}`)
	a := mustPutSchema(t, s, `{"title":"a"}`)
	if _, err := s.PutText("not a schema"); err != nil {
		t.Fatal(err)
	}
	text, _ := s.TextSchema()
	got, err := s.Schemas()
	if err != nil {
		t.Fatal(err)
	}
	want := []SchemaInfo{{MetaSchemaAlias(), MetaSchemaTitle}, {a, "a"}, {b, "b"}, {text.Alias, "text"}}
	if !slices.Equal(got, want) {
		t.Fatalf("Schemas = %v, want %v", got, want)
	}
	doc, err := s.Schema(text.Alias)
	if err != nil || doc["type"] != "string" {
		t.Fatalf("Schema(text) = %v, %v", doc, err)
	}
	if _, err := s.Schema(mustPut(t, s, text.Alias, "x").Alias); !errors.Is(err, ErrNotSchema) {
		t.Fatalf("Schema(non-schema) = %v", err)
	}
	meta, err := s.Schema(MetaSchemaAlias())
	if err != nil || meta["title"] != MetaSchemaTitle {
		t.Fatalf("Schema(meta) = %v, %v", meta, err)
	}
}
