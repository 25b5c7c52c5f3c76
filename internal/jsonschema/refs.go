package jsonschema

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// A resource is a schema with its own base URI: the document's root, and
// every subschema with an "$id" ("id" in draft 4).
type resource struct {
	url            string // absolute, without fragment
	draft          int
	ptr            string            // JSON pointer of its root in the document
	anchors        map[string]string // plain name → JSON pointer in the document
	dynamicAnchors map[string]string // $dynamicAnchor name → JSON pointer
	dynamic        map[string]*node  // the same, compiled
	recursive      bool              // its root has "$recursiveAnchor": true
}

// index holds the resources of one document.
type index struct {
	doc    string // the URL Compile was given
	draft  int    // the document's draft
	refuse func(string) error
	kws    map[int]*keywords
	byURL  map[string]*resource
	byPtr  map[string]*resource
}

// keywords are where a draft has subschemas.
type keywords struct {
	single  []string // keywords whose value is a subschema
	arrays  []string // … an array of subschemas
	objects []string // … an object of subschemas
}

func newIndex(doc string, draft int, refuse func(string) error) *index {
	return &index{doc: doc, draft: draft, refuse: refuse, kws: map[int]*keywords{},
		byURL: map[string]*resource{}, byPtr: map[string]*resource{}}
}

func (ix *index) keywords(d int) *keywords {
	k, ok := ix.kws[d]
	if !ok {
		k = &keywords{}
		k.single, k.arrays, k.objects = subschemaKeywords(d)
		ix.kws[d] = k
	}
	return k
}

// add registers a resource at ptr named u. Two resources may not have the
// same name.
func (ix *index) add(u, ptr string, d int) (*resource, error) {
	if r, ok := ix.byURL[u]; ok && r.ptr != ptr {
		return nil, fmt.Errorf("duplicate id %q in %q at %q and %q", u, ix.doc, r.ptr, ptr)
	}
	r, ok := ix.byPtr[ptr]
	if ok { // the root, named by its $id too
		r.url = u
	} else {
		r = &resource{url: u, ptr: ptr, draft: d, anchors: map[string]string{}, dynamicAnchors: map[string]string{}}
		ix.byPtr[ptr] = r
	}
	ix.byURL[u] = r
	return r, nil
}

// anchor registers a plain-name anchor of a resource.
func (ix *index) anchor(res *resource, name, ptr string) error {
	if p, ok := res.anchors[name]; ok && p != ptr {
		return fmt.Errorf("duplicate anchor %q in %q at %q and %q", name, ix.doc, p, ptr)
	}
	res.anchors[name] = ptr
	return nil
}

// collect walks the subschemas of v at ptr, registering resources and
// anchors. res is the resource v belongs to.
func (ix *index) collect(v any, ptr string, res *resource) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	d := res.draft
	if s, ok := obj["$schema"].(string); ok && ptr != "" {
		// An embedded resource may name a draft of its own.
		d2, err := draftFromSchema(s, ix.doc+"#"+encodeFragment(ptr), ix.doc, ix.refuse)
		if err != nil {
			return err
		}
		if id, _ := obj[idKeyword(d2)].(string); !strings.HasPrefix(id, "#") && id != "" {
			d = d2
		}
	}
	if id, ok := obj[idKeyword(d)].(string); ok {
		ref, _, _ := strings.Cut(id, "#")
		if ref != "" {
			u, err := join(res.url, ref)
			if err != nil {
				return fmt.Errorf("error in parsing id at %q", ix.doc+"#"+encodeFragment(ptr))
			}
			if res, err = ix.add(u, ptr, d); err != nil {
				return err
			}
		}
	}
	if ptr == res.ptr {
		res.recursive, _ = obj["$recursiveAnchor"].(bool)
	}
	if id, ok := obj[idKeyword(d)].(string); ok {
		_, frag, _ := strings.Cut(id, "#")
		if d < draft2019 && frag != "" {
			if name, err := url.PathUnescape(frag); err == nil {
				if err := ix.anchor(res, name, ptr); err != nil {
					return err
				}
			}
		}
	}
	if d >= draft2019 {
		if a, ok := obj["$anchor"].(string); ok {
			if err := ix.anchor(res, a, ptr); err != nil {
				return err
			}
		}
	}
	if d >= draft2020 {
		if a, ok := obj["$dynamicAnchor"].(string); ok {
			if err := ix.anchor(res, a, ptr); err != nil {
				return err
			}
			res.dynamicAnchors[a] = ptr
		}
	}
	kws := ix.keywords(d)
	for _, kw := range kws.single {
		if sub, ok := obj[kw]; ok {
			if err := ix.collect(sub, ptr+"/"+escapeToken(kw), res); err != nil {
				return err
			}
		}
	}
	for _, kw := range kws.arrays {
		if arr, ok := obj[kw].([]any); ok {
			for i, sub := range arr {
				if err := ix.collect(sub, ptr+"/"+kw+"/"+strconv.Itoa(i), res); err != nil {
					return err
				}
			}
		}
	}
	for _, kw := range kws.objects {
		if m, ok := obj[kw].(map[string]any); ok {
			for k, sub := range m {
				if err := ix.collect(sub, ptr+"/"+escapeToken(kw)+"/"+escapeToken(k), res); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resourceAt returns the innermost resource whose root encloses ptr.
func (ix *index) resourceAt(ptr string) *resource {
	for p := ptr; ; {
		if r, ok := ix.byPtr[p]; ok {
			return r
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return ix.byPtr[""]
		}
		p = p[:i]
	}
}

// join resolves ref against base, dropping any fragment of the result.
func join(base, ref string) (string, error) {
	u, _, err := resolveURL(base, ref)
	return u, err
}

// resolveURL resolves ref against base: the absolute URL without fragment,
// and the fragment, percent-decoded.
func resolveURL(base, ref string) (string, string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", "", err
	}
	ref, frag, _ := strings.Cut(ref, "#")
	if frag, err = url.PathUnescape(frag); err != nil {
		return "", "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", "", err
	}
	u := b.ResolveReference(r)
	if !r.IsAbs() && b.Opaque != "" { // ResolveReference drops an opaque base
		u.Opaque = b.Opaque
	}
	return u.String(), frag, nil
}

// escapeToken escapes a reference token of a JSON pointer.
func escapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// lookup returns the value at a JSON pointer of the document.
func (c *compiler) lookup(ptr string) (any, error) {
	cur := c.doc
	if ptr == "" {
		return cur, nil
	}
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok, ok := unescapeToken(tok)
		if !ok {
			return nil, fmt.Errorf("invalid json-pointer %q", c.url+"#"+encodeFragment(ptr))
		}
		var found bool
		switch v := cur.(type) {
		case map[string]any:
			cur, found = v[tok]
		case []any:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(v) {
				cur, found = v[i], true
			}
		}
		if !found {
			return nil, fmt.Errorf("json-pointer in %q not found", c.url+"#"+encodeFragment(ptr))
		}
	}
	return cur, nil
}

// unescapeToken decodes a reference token of a JSON pointer; ok is false
// for a '~' followed by anything but '0' or '1'.
func unescapeToken(tok string) (string, bool) {
	if !strings.Contains(tok, "~") {
		return tok, true
	}
	var sb strings.Builder
	for i := 0; i < len(tok); i++ {
		if tok[i] != '~' {
			sb.WriteByte(tok[i])
			continue
		}
		if i+1 == len(tok) {
			return "", false
		}
		switch tok[i+1] {
		case '0':
			sb.WriteByte('~')
		case '1':
			sb.WriteByte('/')
		default:
			return "", false
		}
		i++
	}
	return sb.String(), true
}

// LoadError is the error of Compile for a reference to another document:
// nothing is ever loaded.
type LoadError struct {
	URL string
	Err error
}

func (e *LoadError) Error() string { return fmt.Sprintf("failing loading %q: %v", e.URL, e.Err) }
func (e *LoadError) Unwrap() error { return e.Err }

// resolve finds the schema a reference made in resource res points to, as
// a JSON pointer into the document, and the anchor its fragment names, if
// any.
func (c *compiler) resolve(ref string, res *resource) (ptr, anchor string, err error) {
	u, frag, err := resolveURL(res.url, ref)
	if err != nil {
		return "", "", fmt.Errorf("invalid reference %q: %w", ref, err)
	}
	target, ok := c.ix.byURL[u]
	if !ok {
		return "", "", &LoadError{URL: u, Err: c.refuse(u)}
	}
	switch {
	case frag == "":
		return target.ptr, "", nil
	case strings.HasPrefix(frag, "/"):
		return target.ptr + frag, "", nil // looked up when compiled
	}
	p, ok := target.anchors[frag]
	if !ok {
		return "", "", fmt.Errorf("anchor in %q not found in schema %q", u+"#"+encodeFragment(frag), c.url)
	}
	return p, frag, nil
}

// encodeFragment percent-encodes a fragment for a message, each token of a
// JSON pointer on its own.
func encodeFragment(frag string) string {
	toks := strings.Split(frag, "/")
	for i, t := range toks {
		toks[i] = url.PathEscape(t)
	}
	return strings.Join(toks, "/")
}
