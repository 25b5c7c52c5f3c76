package objects

import (
	"errors"
	"testing"
)

func TestMetaSchemaConstant(t *testing.T) {
	c, err := Canonicalize([]byte(metaSchemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	if string(c) != metaSchemaJSON {
		t.Fatalf("metaSchemaJSON is not canonical:\n got %s\nwant %s", metaSchemaJSON, c)
	}
	n, err := DecodeNode(metaBlob())
	if err != nil {
		t.Fatal(err)
	}
	if n.Type != n.Alias || !n.SelfTyped() {
		t.Fatalf("meta-schema not self-typed: %+v", n)
	}
	// Pinned: changing the meta-schema changes every schema's type.
	const want = Alias("0G10GBGYBZC3C")
	if got := MetaSchemaAlias(); got != want {
		t.Fatalf("MetaSchemaAlias() = %s, want %s", got, want)
	}
}

func TestEncodeDecodeNode(t *testing.T) {
	typ := Alias("0123456789ABC")
	tests := []struct {
		name    string
		typ     Alias
		payload any
		want    string
	}{
		{"object", typ, map[string]any{"b": 1, "a": "x"}, `{"payload":{"a":"x","b":1},"type":"0123456789ABC"}`},
		{"string", typ, "hi", `{"payload":"hi","type":"0123456789ABC"}`},
		{"null", typ, nil, `{"payload":null,"type":"0123456789ABC"}`},
		{"self-typed", "", true, `{"payload":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := EncodeNode(tt.typ, tt.payload)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Fatalf("EncodeNode = %s, want %s", b, tt.want)
			}
			n, err := DecodeNode(b)
			if err != nil {
				t.Fatal(err)
			}
			if n.Alias != AliasOf(b) {
				t.Errorf("Alias = %s, want %s", n.Alias, AliasOf(b))
			}
			wantType := tt.typ
			if wantType == "" {
				wantType = n.Alias
			}
			if n.Type != wantType {
				t.Errorf("Type = %s, want %s", n.Type, wantType)
			}
			c, _ := MarshalCanonical(tt.payload)
			if string(n.Payload) != string(c) {
				t.Errorf("Payload = %s, want %s", n.Payload, c)
			}
		})
	}
	if _, err := EncodeNode("nope", 1); err == nil {
		t.Error("EncodeNode with a bad type succeeded")
	}
}

func TestDecodeNodeRejects(t *testing.T) {
	tests := []struct{ name, blob string }{
		{"not canonical", `{"type":"0123456789ABC","payload":1}`},
		{"whitespace", `{"payload": 1}`},
		{"not json", `hello`},
		{"array", `[1]`},
		{"no payload", `{"type":"0123456789ABC"}`},
		{"extra member", `{"extra":1,"payload":1,"type":"0123456789ABC"}`},
		{"other member", `{"payload":1,"typo":"0123456789ABC"}`},
		{"bad type", `{"payload":1,"type":"abc"}`},
		{"lowercase type", `{"payload":1,"type":"0123456789abc"}`},
		{"type not string", `{"payload":1,"type":5}`},
		{"empty", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeNode([]byte(tt.blob))
			if !errors.Is(err, ErrNotNode) {
				t.Fatalf("DecodeNode(%s) error = %v, want ErrNotNode", tt.blob, err)
			}
		})
	}
}
