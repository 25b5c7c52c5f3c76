package moderator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Limits of the loader. They bound the work a hostile file can cause: YAML
// aliases are expanded while the tree is built, so "billion laughs" documents
// hit maxNodes instead of memory.
const (
	maxNodes        = 100_000
	maxIncludeDepth = 8
	maxIncludes     = 64
	maxIncludeBytes = 4 << 20
)

type nodeKind int

const (
	scalarNode nodeKind = iota + 1
	mapNode
	seqNode
)

// node is a resolved YAML (or JSON) value with its source position: aliases
// are expanded, !include tags replaced by the included content.
type node struct {
	kind      nodeKind
	file      string
	line, col int
	// val is the decoded scalar: string, int64, float64, bool or nil.
	val   any
	keys  []*node // mapNode: keys (scalars), in file order
	vals  []*node // mapNode: values
	items []*node // seqNode
	// broken marks a node that stands in for content that failed to load
	// (a bad !include); problems about it would only repeat that failure.
	broken bool
}

func (n *node) isNull() bool { return n == nil || (n.kind == scalarNode && n.val == nil) }

// str returns the node's string value and whether it is a string scalar.
func (n *node) str() (string, bool) {
	if n == nil || n.kind != scalarNode {
		return "", false
	}
	s, ok := n.val.(string)
	return s, ok
}

// keyString is the text of a mapping key.
func (n *node) keyString() string {
	if n.kind != scalarNode {
		return ""
	}
	switch v := n.val.(type) {
	case string:
		return v
	case nil:
		return "null"
	default:
		return fmt.Sprint(v)
	}
}

// get returns the value of key in a mapping node, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != mapNode {
		return nil
	}
	for i, k := range n.keys {
		if k.keyString() == key {
			return n.vals[i]
		}
	}
	return nil
}

// keyNode returns the key node of key in a mapping node, or nil.
func (n *node) keyNode(key string) *node {
	if n == nil || n.kind != mapNode {
		return nil
	}
	for _, k := range n.keys {
		if k.keyString() == key {
			return k
		}
	}
	return nil
}

// value converts the node into plain JSON-able Go values.
func (n *node) value() any {
	if n == nil {
		return nil
	}
	switch n.kind {
	case mapNode:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k.keyString()] = n.vals[i].value()
		}
		return m
	case seqNode:
		s := make([]any, len(n.items))
		for i, it := range n.items {
			s[i] = it.value()
		}
		return s
	default:
		return n.val
	}
}

func (n *node) kindName() string {
	switch {
	case n == nil:
		return "nothing"
	case n.kind == mapNode:
		return "a mapping"
	case n.kind == seqNode:
		return "a sequence"
	case n.val == nil:
		return "null"
	}
	switch n.val.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// loader builds node trees from YAML files, resolving aliases and includes.
type loader struct {
	fsys     fs.FS
	probs    *problems
	nodes    int
	includes int
	bytes    int
	stack    []string // files being loaded, for cycle detection
	aborted  bool
}

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// parseYAML parses data (the content of file) into a node tree. It returns
// nil when the file could not be parsed; the reason is in l.probs.
func (l *loader) parseYAML(file string, data []byte, at *node) (root *node) {
	var doc yaml.Node
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("yaml: %v", r)
			}
		}()
		return yaml.Unmarshal(data, &doc)
	}()
	if err != nil {
		msg := err.Error()
		line := 0
		if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		} else {
			msg = strings.TrimPrefix(msg, "yaml: ")
		}
		// yaml.v3 names the construct around the error: point at the
		// offending token instead (see yamlpos.go).
		line, col, note := locateYAMLError(data, line, msg)
		if note != "" {
			msg += " (" + note + ")"
		}
		if at != nil {
			l.probs.add(at, "included file %s: line %d: invalid YAML: %s", file, line, msg)
		} else {
			l.probs.addFile(file, line, col, "invalid YAML: %s", msg)
		}
		return nil
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		if at != nil {
			l.probs.add(at, "included file %s is empty", file)
			return nil
		}
		l.probs.addFile(file, 1, 1, "empty workflow file")
		return nil
	}
	l.stack = append(l.stack, file)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	return l.convert(file, doc.Content[0], 0)
}

// convert turns a yaml.Node into a node, counting every node built (aliases
// included) against maxNodes.
func (l *loader) convert(file string, y *yaml.Node, depth int) *node {
	if l.aborted {
		return nil
	}
	l.nodes++
	if l.nodes > maxNodes {
		l.aborted = true
		l.probs.addFile(file, y.Line, y.Column, "document too large: more than %d nodes after expanding aliases and includes", maxNodes)
		return nil
	}
	if depth > 1000 {
		l.aborted = true
		l.probs.addFile(file, y.Line, y.Column, "document nested too deeply")
		return nil
	}
	n := &node{file: file, line: y.Line, col: y.Column}
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			l.probs.add(n, "unknown alias %q", y.Value)
			return &node{kind: scalarNode, file: file, line: y.Line, col: y.Column}
		}
		a := l.convert(file, y.Alias, depth+1)
		if a == nil {
			return nil
		}
		// Report problems inside aliased content at the alias's position.
		c := *a
		c.line, c.col = y.Line, y.Column
		return &c
	case yaml.MappingNode:
		if y.Tag != "" && y.Tag != "!!map" && y.ShortTag() != "!!map" {
			l.probs.add(n, "unsupported YAML tag %q on a mapping", y.Tag)
		}
		n.kind = mapNode
		seen := map[string]bool{}
		for i := 0; i+1 < len(y.Content); i += 2 {
			ky, vy := y.Content[i], y.Content[i+1]
			if ky.Kind == yaml.ScalarNode && ky.ShortTag() == "!!merge" {
				l.merge(file, n, vy, seen, depth)
				continue
			}
			k := l.convert(file, ky, depth+1)
			if k == nil {
				return nil
			}
			if k.kind != scalarNode {
				l.probs.add(k, "mapping keys must be scalars")
				continue
			}
			ks := k.keyString()
			if seen[ks] {
				l.probs.add(k, "duplicate key %q", ks)
				continue
			}
			v := l.convert(file, vy, depth+1)
			if v == nil {
				return nil
			}
			seen[ks] = true
			n.keys = append(n.keys, k)
			n.vals = append(n.vals, v)
		}
		return n
	case yaml.SequenceNode:
		n.kind = seqNode
		for _, c := range y.Content {
			v := l.convert(file, c, depth+1)
			if v == nil {
				return nil
			}
			n.items = append(n.items, v)
		}
		return n
	case yaml.ScalarNode:
		return l.scalar(file, y, n, depth)
	default:
		l.probs.add(n, "unsupported YAML node")
		n.kind = scalarNode
		return n
	}
}

// merge applies a YAML merge key (<<: *anchor or <<: [*a, *b]) to n: keys
// not set explicitly are taken from the merged mappings.
func (l *loader) merge(file string, n *node, vy *yaml.Node, seen map[string]bool, depth int) {
	v := l.convert(file, vy, depth+1)
	if v == nil {
		return
	}
	var srcs []*node
	switch v.kind {
	case mapNode:
		srcs = []*node{v}
	case seqNode:
		srcs = v.items
	}
	if len(srcs) == 0 && v.kind != seqNode {
		l.probs.add(v, "merge key << needs a mapping or a sequence of mappings, got %s", v.kindName())
		return
	}
	for _, s := range srcs {
		if s.kind != mapNode {
			l.probs.add(s, "merge key << needs a mapping or a sequence of mappings, got %s", s.kindName())
			continue
		}
		for i, k := range s.keys {
			ks := k.keyString()
			if seen[ks] {
				continue
			}
			seen[ks] = true
			n.keys = append(n.keys, k)
			n.vals = append(n.vals, s.vals[i])
		}
	}
}

func (l *loader) scalar(file string, y *yaml.Node, n *node, depth int) *node {
	n.kind = scalarNode
	tag := y.Tag
	if tag == "!include" {
		return l.include(file, y, n, depth)
	}
	switch y.ShortTag() {
	case "!!str", "!!timestamp", "!!binary":
		n.val = y.Value
	case "!!null":
		n.val = nil
	case "!!bool":
		var b bool
		if err := y.Decode(&b); err != nil {
			l.probs.add(n, "invalid boolean %q", y.Value)
		}
		n.val = b
	case "!!int":
		var i int64
		if err := y.Decode(&i); err == nil {
			n.val = i
			break
		}
		var f float64
		if err := y.Decode(&f); err != nil {
			l.probs.add(n, "invalid number %q", y.Value)
		}
		n.val = f
	case "!!float":
		var f float64
		if err := y.Decode(&f); err != nil {
			l.probs.add(n, "invalid number %q", y.Value)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			l.probs.add(n, "number %q cannot be represented in JSON", y.Value)
			f = 0
		}
		n.val = f
	default:
		l.probs.add(n, "unsupported YAML tag %q", tag)
		n.val = y.Value
	}
	return n
}

// include resolves `!include <path>` relative to the directory of file.
func (l *loader) include(file string, y *yaml.Node, at *node, depth int) *node {
	n := l.includeContent(file, y, at, depth)
	if n == at && at.val == nil {
		at.broken = true
	}
	return n
}

func (l *loader) includeContent(file string, y *yaml.Node, at *node, depth int) *node {
	at.val = nil
	rel := y.Value
	target, err := includePath(file, rel)
	if err != nil {
		l.probs.add(at, "!include %q: %v", rel, err)
		return at
	}
	if l.fsys == nil {
		l.probs.add(at, "!include %q: no file system to read includes from", rel)
		return at
	}
	for _, f := range l.stack {
		if f == target {
			l.probs.add(at, "!include %q: include cycle (%s)", rel, strings.Join(append(append([]string(nil), l.stack...), target), " -> "))
			return at
		}
	}
	if len(l.stack) >= maxIncludeDepth {
		l.probs.add(at, "!include %q: includes nested deeper than %d", rel, maxIncludeDepth)
		return at
	}
	l.includes++
	if l.includes > maxIncludes {
		l.probs.add(at, "!include %q: more than %d includes", rel, maxIncludes)
		return at
	}
	data, err := fs.ReadFile(l.fsys, target)
	if err != nil {
		l.probs.add(at, "!include %q: %v", rel, unwrapPathError(err))
		return at
	}
	l.bytes += len(data)
	if l.bytes > maxIncludeBytes {
		l.probs.add(at, "!include %q: included files exceed %d bytes in total", rel, maxIncludeBytes)
		return at
	}
	switch strings.ToLower(path.Ext(target)) {
	case ".yaml", ".yml":
		n := l.parseYAML(target, data, at)
		if n == nil {
			return at
		}
		return n
	case ".json":
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			l.probs.add(at, "!include %q: invalid JSON: %v", rel, err)
			return at
		}
		if dec.More() {
			l.probs.add(at, "!include %q: invalid JSON: trailing data", rel)
			return at
		}
		n, err := l.fromValue(v, target, at.line, at.col, depth)
		if err != nil {
			l.probs.add(at, "!include %q: %v", rel, err)
			return at
		}
		return n
	default:
		at.val = string(data)
		return at
	}
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// includePath resolves rel against the directory of file and checks that it
// stays inside that directory.
func includePath(file, rel string) (string, error) {
	switch {
	case rel == "":
		return "", errors.New("empty path")
	case strings.HasPrefix(rel, "/"):
		return "", errors.New("absolute paths are not allowed")
	case strings.Contains(rel, `\`):
		return "", errors.New(`backslashes are not allowed; use "/"`)
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." {
			return "", errors.New(`".." segments are not allowed: includes must stay inside the including file's directory`)
		}
	}
	dir := path.Dir(file)
	if file == "" {
		dir = "."
	}
	target := path.Join(dir, path.Clean(rel))
	if !fs.ValidPath(target) {
		return "", fmt.Errorf("invalid path %q", target)
	}
	if dir != "." && !strings.HasPrefix(target, dir+"/") {
		return "", errors.New("path escapes the including file's directory")
	}
	if target == dir || target == "." {
		return "", errors.New("path names the directory itself")
	}
	return target, nil
}

// fromValue converts a decoded JSON value into a node tree located at
// file:line:col. json.Number becomes int64 when integral, else float64.
func (l *loader) fromValue(v any, file string, line, col, depth int) (*node, error) {
	l.nodes++
	if l.nodes > maxNodes {
		return nil, fmt.Errorf("document too large: more than %d nodes", maxNodes)
	}
	if depth > 1000 {
		return nil, errors.New("document nested too deeply")
	}
	n := &node{file: file, line: line, col: col}
	switch x := v.(type) {
	case map[string]any:
		n.kind = mapNode
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c, err := l.fromValue(x[k], file, line, col, depth+1)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, &node{kind: scalarNode, file: file, line: line, col: col, val: k})
			n.vals = append(n.vals, c)
		}
	case []any:
		n.kind = seqNode
		for _, it := range x {
			c, err := l.fromValue(it, file, line, col, depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, c)
		}
	case []string:
		n.kind = seqNode
		for _, it := range x {
			n.items = append(n.items, &node{kind: scalarNode, file: file, line: line, col: col, val: it})
		}
	case json.Number:
		n.kind = scalarNode
		if i, err := x.Int64(); err == nil {
			n.val = i
		} else if f, err := x.Float64(); err == nil {
			n.val = f
		} else {
			return nil, fmt.Errorf("invalid number %q", x.String())
		}
	case nil, string, bool, int64, float64:
		n.kind = scalarNode
		n.val = x
	case int:
		n.kind = scalarNode
		n.val = int64(x)
	case float32:
		n.kind = scalarNode
		n.val = float64(x)
	default:
		return nil, fmt.Errorf("unsupported value of type %T", v)
	}
	return n, nil
}
