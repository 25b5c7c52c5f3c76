package objects

import (
	"fmt"
)

// Refs returns the aliases n refers to: the strings at positions whose
// sub-schema has format uwf_ref or ocas_ref, deduplicated in first-seen
// order (canonical key order). The node's type link is not a reference.
func (s *Store) Refs(n Node) ([]Alias, error) {
	var refs []Alias
	seen := map[Alias]bool{}
	_, err := s.mapRefs(n, func(a Alias) any {
		if !seen[a] {
			seen[a] = true
			refs = append(refs, a)
		}
		return string(a)
	})
	if err != nil {
		return nil, err
	}
	return refs, nil
}

// mapRefs decodes n's payload and replaces every reference by fn's result.
func (s *Store) mapRefs(n Node, fn func(Alias) any) (any, error) {
	v, err := decodeAny(n.Payload)
	if err != nil {
		return nil, fmt.Errorf("refs of %s: %w", n.Alias, err)
	}
	if n.Type == n.Alias {
		return v, nil // the meta-schema declares no references
	}
	c, err := s.schemaFor(n.Type)
	if err != nil {
		return nil, fmt.Errorf("refs of %s: %w", n.Alias, err)
	}
	m := &refMapper{root: c.doc, fn: fn}
	return m.mapValue(c.doc, v, 0), nil
}

// Walk returns root and every node reachable from it through references,
// breadth first, each once. Referenced nodes that are not available are
// skipped; a missing root is ErrNotFound.
func (s *Store) Walk(root Alias) ([]Alias, error) {
	n, err := s.Get(root)
	if err != nil {
		return nil, fmt.Errorf("walk: %w", err)
	}
	out := []Alias{root}
	seen := map[Alias]bool{root: true}
	queue := []Node{n}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		refs, err := s.Refs(cur)
		if err != nil {
			return nil, fmt.Errorf("walk from %s: %w", root, err)
		}
		for _, a := range refs {
			if seen[a] {
				continue
			}
			seen[a] = true
			child, err := s.Get(a)
			if isNotFound(err) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("walk from %s: %w", root, err)
			}
			out = append(out, a)
			queue = append(queue, child)
		}
	}
	return out, nil
}

// Expand returns the payload of a with every reference replaced by the
// expanded payload of the referenced node, recursively. References to
// missing nodes, and references that would close a cycle, stay alias strings.
func (s *Store) Expand(a Alias) (any, error) {
	e := expander{s: s, active: map[Alias]bool{}, done: map[Alias]any{}}
	n, err := s.Get(a)
	if err != nil {
		return nil, fmt.Errorf("expand: %w", err)
	}
	return e.expand(n)
}

type expander struct {
	s      *Store
	active map[Alias]bool
	done   map[Alias]any
	err    error
}

func (e *expander) expand(n Node) (any, error) {
	e.active[n.Alias] = true
	defer delete(e.active, n.Alias)
	v, err := e.s.mapRefs(n, func(a Alias) any {
		if e.err != nil || e.active[a] {
			return string(a)
		}
		if v, ok := e.done[a]; ok {
			return v
		}
		child, err := e.s.Get(a)
		if err != nil {
			if !isNotFound(err) {
				e.err = err
			}
			return string(a)
		}
		v, err := e.expand(child)
		if err != nil {
			e.err = err
			return string(a)
		}
		e.done[a] = v
		return v
	})
	if err != nil {
		return nil, err
	}
	if e.err != nil {
		return nil, fmt.Errorf("expand %s: %w", n.Alias, e.err)
	}
	return v, nil
}
