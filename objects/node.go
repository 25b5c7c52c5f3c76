package objects

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// Node is a decoded node blob.
type Node struct {
	Alias   Alias           // alias of the blob bytes
	OID     gitobj.Hash     // git blob oid (zero when decoded from bytes alone)
	Type    Alias           // alias of the schema node; == Alias for the meta-schema
	Payload json.RawMessage // canonical JSON
}

// Ref names a stored node both ways.
type Ref struct {
	Alias Alias
	OID   gitobj.Hash
}

// SelfTyped reports whether n is its own type (the meta-schema).
func (n Node) SelfTyped() bool { return n.Type == n.Alias }

// Decode unmarshals the payload into v.
func (n Node) Decode(v any) error {
	if err := json.Unmarshal(n.Payload, v); err != nil {
		return fmt.Errorf("decode payload of node %s: %w", n.Alias, err)
	}
	return nil
}

// EncodeNode returns the blob bytes of the node {typ, payload}. An empty typ
// gives the self-typed form {"payload":P} used by the meta-schema.
func EncodeNode(typ Alias, payload any) ([]byte, error) {
	if typ != "" && !IsAlias(string(typ)) {
		return nil, fmt.Errorf("encode node: type %q is not a canonical alias", typ)
	}
	p, err := MarshalCanonical(payload)
	if err != nil {
		return nil, fmt.Errorf("encode node: %w", err)
	}
	return encodeCanonicalNode(typ, p), nil
}

// encodeCanonicalNode builds the blob from an already canonical payload.
// "payload" sorts before "type", and an alias needs no escaping.
func encodeCanonicalNode(typ Alias, canonicalPayload []byte) []byte {
	b := make([]byte, 0, len(canonicalPayload)+40)
	b = append(b, `{"payload":`...)
	b = append(b, canonicalPayload...)
	if typ != "" {
		b = append(b, `,"type":"`...)
		b = append(b, typ...)
		b = append(b, '"')
	}
	return append(b, '}')
}

// DecodeNode decodes node blob bytes. The bytes must be exactly the canonical
// JSON of {"payload":P,"type":"T"} or {"payload":P}; anything else is
// ErrNotNode. OID is left zero.
func DecodeNode(blob []byte) (Node, error) {
	if n, ok := decodeCanonicalNode(blob); ok {
		return n, nil
	}
	c, err := Canonicalize(blob)
	if err != nil {
		return Node{}, fmt.Errorf("%w: %w", ErrNotNode, err)
	}
	if !bytes.Equal(c, blob) {
		return Node{}, fmt.Errorf("%w: bytes are not canonical json", ErrNotNode)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(blob, &m); err != nil {
		return Node{}, fmt.Errorf("%w: not a json object", ErrNotNode)
	}
	payload, ok := m["payload"]
	if !ok {
		return Node{}, fmt.Errorf("%w: no payload", ErrNotNode)
	}
	n := Node{Alias: AliasOf(blob), Payload: payload}
	switch len(m) {
	case 1:
		n.Type = n.Alias
	case 2:
		raw, ok := m["type"]
		if !ok {
			return Node{}, fmt.Errorf("%w: unexpected member", ErrNotNode)
		}
		var t string
		if err := json.Unmarshal(raw, &t); err != nil || !IsAlias(t) {
			return Node{}, fmt.Errorf("%w: type is not a canonical alias", ErrNotNode)
		}
		n.Type = Alias(t)
	default:
		return Node{}, fmt.Errorf("%w: unexpected members", ErrNotNode)
	}
	return n, nil
}
