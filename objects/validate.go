package objects

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/git-uwf/git-uwf/internal/jsonschema"
)

// schemaFor returns the compiled schema of the schema node typ.
func (s *Store) schemaFor(typ Alias) (*compiled, error) {
	s.schemaMu.Lock()
	c, ok := s.schemas[typ]
	s.schemaMu.Unlock()
	if ok {
		return c, nil
	}
	var payload []byte
	if typ == s.meta {
		payload = []byte(metaSchemaJSON) // known without reading storage
	} else {
		n, err := s.Get(typ)
		if err != nil {
			return nil, fmt.Errorf("type %s: %w", typ, err)
		}
		if n.Type != s.meta {
			return nil, fmt.Errorf("type %s: %w (its type is %s)", typ, ErrNotSchema, n.Type)
		}
		payload = n.Payload
	}
	doc, err := jsonschema.Decode(payload)
	if err != nil {
		return nil, fmt.Errorf("type %s: %w", typ, err)
	}
	sch, err := compileSchema(typ, doc)
	if err != nil {
		return nil, fmt.Errorf("type %s: %w: %w", typ, ErrNotSchema, schemaError(s.meta, err))
	}
	c = &compiled{payload: payload, doc: doc, title: schemaTitle(doc), sch: sch}
	s.schemaMu.Lock()
	s.schemas[typ] = c
	s.schemaMu.Unlock()
	return c, nil
}

// Validate checks payload against the schema node typ. A mismatch is a
// *ValidationError; an unknown or non-schema typ is ErrNotFound or
// ErrNotSchema.
func (s *Store) Validate(typ Alias, payload any) error {
	p, err := MarshalCanonical(payload)
	if err != nil {
		return fmt.Errorf("validate against %s: %w", typ, err)
	}
	return s.validateCanonical(typ, p)
}

func (s *Store) validateCanonical(typ Alias, p []byte) error {
	c, err := s.schemaFor(typ)
	if err != nil {
		return err
	}
	inst, err := jsonschema.Decode(p)
	if err != nil {
		return fmt.Errorf("validate against %s: %w", typ, err)
	}
	if err := c.sch.Validate(inst); err != nil {
		return &ValidationError{Type: typ, Title: c.title, Violations: jsonschema.Violations(err)}
	}
	return nil
}

// Schema returns the JSON Schema document of the schema node a. Boolean
// schemas are returned as {} (true) and {"not":{}} (false).
func (s *Store) Schema(a Alias) (map[string]any, error) {
	c, err := s.schemaFor(a)
	if err != nil {
		return nil, err
	}
	// Decode afresh so the caller may modify the map.
	return SchemaDocument(a, c.payload)
}

// SchemaDocument decodes the payload of schema node a into its JSON Schema
// document, as Schema returns it.
func SchemaDocument(a Alias, payload []byte) (map[string]any, error) {
	v, err := decodeAny(payload)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", a, err)
	}
	switch d := v.(type) {
	case map[string]any:
		return d, nil
	case bool:
		if d {
			return map[string]any{}, nil
		}
		return map[string]any{"not": map[string]any{}}, nil
	default:
		return nil, fmt.Errorf("schema %s: %w", a, ErrNotSchema)
	}
}

// SchemaInfo describes one schema node.
type SchemaInfo struct {
	Alias Alias
	Title string
}

// Schemas lists every schema node known to the index (after a refresh),
// the meta-schema first, then by title and alias.
func (s *Store) Schemas() ([]SchemaInfo, error) {
	if _, err := s.MetaSchema(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.idx.ensure(); err != nil {
		return nil, err
	}
	if err := s.refreshLocked(context.Background()); err != nil {
		return nil, err
	}
	var out []SchemaInfo
	all := map[Alias]struct{}{}
	s.idx.forEach(func(a Alias) { all[a] = struct{}{} })
	for a := range all {
		if a == s.meta {
			continue
		}
		oids, blobs := s.verified(a)
		if len(oids) != 1 {
			continue
		}
		n, err := DecodeNode(blobs[0])
		if err != nil || n.Type != s.meta {
			continue
		}
		v, err := decodeAny(n.Payload)
		if err != nil {
			continue
		}
		out = append(out, SchemaInfo{Alias: a, Title: schemaTitle(v)})
	}
	slices.SortFunc(out, func(x, y SchemaInfo) int {
		if c := strings.Compare(x.Title, y.Title); c != 0 {
			return c
		}
		return strings.Compare(string(x.Alias), string(y.Alias))
	})
	return append([]SchemaInfo{{Alias: s.meta, Title: MetaSchemaTitle}}, out...), nil
}

// isNotFound reports whether err means "no such node".
func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
