package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"
	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/internal/atomicfile"
)

// Scope says where a configuration value comes from.
type Scope string

// The layers, from lowest to highest precedence.
const (
	ScopeBuiltin Scope = "built-in"
	ScopeUser    Scope = "user"
	ScopeTeam    Scope = "team"
	ScopeRepo    Scope = "repo"
)

// maxFileSize bounds a configuration file.
const maxFileSize = 1 << 20

// Entry is one configuration value and where it was set.
type Entry struct {
	// Key is the dotted key, e.g. "agents.claude.command".
	Key  string
	Path []string
	// Value is a string, time.Duration, int, bool or []string (for a
	// command line, the argv); nil means a null that removes the key.
	Value any
	// Text is the value as the user wrote it (a command line stays one
	// string).
	Text  string
	Scope Scope
	// File and Line locate the value; both are empty for built-in values.
	File string
	Line int
}

// Where describes the origin for messages: "file:line" or "built-in".
func (e Entry) Where() string {
	if e.File == "" {
		return string(e.Scope)
	}
	return fmt.Sprintf("%s:%d", e.File, e.Line)
}

// readFile parses one configuration file; a missing file gives no entries.
func readFile(path string, scope Scope) ([]Entry, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s configuration: %w", scope, err)
	}
	return parseFile(path, scope, data)
}

// parseFile checks every key of a file against the schema and the scope's
// trust rule and returns its values.
func parseFile(path string, scope Scope, data []byte) ([]Entry, error) {
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%s: configuration file larger than %d bytes", path, maxFileSize)
	}
	root, err := parseDoc(path, data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, nil
	}
	p := parser{file: path, scope: scope}
	if err := p.walk(root, nil, rootSpec()); err != nil {
		return nil, err
	}
	return p.entries, nil
}

// parseDoc returns the top-level mapping of a YAML document, nil for an
// empty one.
func parseDoc(path string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: the configuration must be a mapping of keys", path, root.Line)
	}
	return root, nil
}

type parser struct {
	file    string
	scope   Scope
	entries []Entry
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, n.Line, fmt.Sprintf(format, args...))
}

func (p *parser) walk(n *yaml.Node, path []string, spec *keySpec) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		// "section: null" removes the section set by earlier layers.
		if p.scope == ScopeTeam && !spec.teamAllowed() {
			return p.teamError(n, path)
		}
		p.entries = append(p.entries, Entry{Key: strings.Join(path, "."), Path: path, Scope: p.scope, File: p.file, Line: n.Line})
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return p.errorf(n, "%q must be a mapping", strings.Join(path, "."))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return p.errorf(k, "keys must be plain strings")
		}
		name := k.Value
		sub := append(append([]string(nil), path...), name)
		if name == "<<" {
			return p.errorf(k, "merge keys (<<) are not supported in configuration files")
		}
		if seen[name] {
			return p.errorf(k, "duplicate key %q", strings.Join(sub, "."))
		}
		seen[name] = true
		if name == "" || strings.Contains(name, ".") {
			return p.errorf(k, "key %q: names may not be empty or contain dots", strings.Join(sub, "."))
		}
		c := spec.child(name)
		if c == nil {
			return p.errorf(k, "%v", unknownKeyError(sub, spec))
		}
		if p.scope == ScopeTeam && !c.teamAllowed() {
			return p.teamError(k, sub)
		}
		if c.kind == kindMap {
			if err := p.walk(v, sub, c); err != nil {
				return err
			}
			continue
		}
		e, err := decodeValue(v, c.kind)
		if err != nil {
			return p.errorf(v, "%s: %v", strings.Join(sub, "."), err)
		}
		e.Key, e.Path, e.Scope, e.File, e.Line = strings.Join(sub, "."), sub, p.scope, p.file, k.Line
		p.entries = append(p.entries, e)
	}
	return nil
}

func (p *parser) teamError(n *yaml.Node, path []string) error {
	return p.errorf(n, "%q may not be set in the team configuration: that file travels with the repository, "+
		"so it may only set defaultAgent, overrides.<workflow>.<role> and extraction.retries; "+
		"put %q in your user configuration (git uwf config set --user) or the repository-local one (--repo)",
		strings.Join(path, "."), strings.Join(path, "."))
}

// decodeValue converts a YAML node to a value of kind k.
func decodeValue(n *yaml.Node, k kind) (Entry, error) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return Entry{}, nil
	}
	if k == kindCommand && n.Kind == yaml.SequenceNode || k == kindList && n.Kind == yaml.SequenceNode {
		var list []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
				return Entry{}, fmt.Errorf("want a %s", k)
			}
			list = append(list, c.Value)
		}
		if k == kindCommand && (len(list) == 0 || list[0] == "") {
			return Entry{}, errors.New("empty command line")
		}
		return Entry{Value: list, Text: shellquote.Join(list...)}, nil
	}
	if n.Kind != yaml.ScalarNode {
		return Entry{}, fmt.Errorf("want a %s", k)
	}
	return parseScalar(n.Value, k)
}

// parseScalar converts the text of a scalar to a value of kind k.
func parseScalar(s string, k kind) (Entry, error) {
	switch k {
	case kindString:
		return Entry{Value: s, Text: s}, nil
	case kindDuration:
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return Entry{}, fmt.Errorf("%q is not a positive duration (like 90s or 30m)", s)
		}
		return Entry{Value: d, Text: s}, nil
	case kindInt:
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return Entry{}, fmt.Errorf("%q is not a non-negative integer", s)
		}
		return Entry{Value: n, Text: s}, nil
	case kindBool:
		var b bool
		if err := yaml.Unmarshal([]byte(s), &b); err != nil {
			return Entry{}, fmt.Errorf("%q is not true or false", s)
		}
		return Entry{Value: b, Text: strconv.FormatBool(b)}, nil
	case kindCommand:
		argv, err := shellquote.Split(s)
		if err != nil {
			return Entry{}, fmt.Errorf("command line %q: %s", s, strings.ToLower(err.Error()))
		}
		if len(argv) == 0 {
			return Entry{}, errors.New("empty command line")
		}
		return Entry{Value: argv, Text: s}, nil
	case kindList:
		return Entry{Value: []string{s}, Text: s}, nil
	}
	return Entry{}, fmt.Errorf("want a %s", k)
}

// valueNode builds the YAML node `config set` writes for value.
func valueNode(value string, k kind) (*yaml.Node, error) {
	trimmed := strings.TrimSpace(value)
	if (k == kindCommand || k == kindList) && strings.HasPrefix(trimmed, "[") {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(trimmed), &n); err != nil || len(n.Content) != 1 || n.Content[0].Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("%q is not a YAML list like [\"a\", \"b\"]", value)
		}
		seq := n.Content[0]
		if _, err := decodeValue(seq, k); err != nil {
			return nil, err
		}
		seq.Style = yaml.FlowStyle
		return seq, nil
	}
	if _, err := parseScalar(value, k); err != nil {
		return nil, err
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: value}
	switch k {
	case kindInt:
		n.Tag = "!!int"
	case kindBool:
		e, _ := parseScalar(value, k)
		n.Tag, n.Value = "!!bool", e.Text
	case kindList:
		return &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}}}, nil
	default:
		n.Tag = "!!str"
	}
	return n, nil
}

// editFile sets (value non-nil) or removes (value nil) a key in a file and
// writes it back atomically. The result is checked like any loaded file
// before it replaces the old one.
func editFile(path string, scope Scope, key string, value *string) error {
	keyPath, spec, err := lookupKey(key)
	if err != nil {
		return err
	}
	if scope == ScopeTeam && !spec.team {
		return fmt.Errorf("%q may not be set in the team configuration %s: only defaultAgent, overrides.<workflow>.<role> and extraction.retries may; use --user or --repo", key, path)
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	root, err := parseDoc(path, data)
	if err != nil {
		return err
	}
	if root == nil {
		root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	if value == nil {
		if !removeKey(root, keyPath) {
			return fmt.Errorf("%s: key %q is not set there", path, key)
		}
	} else {
		n, err := valueNode(*value, spec.kind)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if err := setKey(root, keyPath, n); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	out := buf.Bytes()
	if len(root.Content) == 0 {
		out = nil
	}
	if _, err := parseFile(path, scope, out); err != nil {
		return fmt.Errorf("refusing to write an invalid configuration: %w", err)
	}
	return writeAtomic(path, out)
}

// setKey sets path in the mapping root to n, creating mappings on the way.
func setKey(root *yaml.Node, path []string, n *yaml.Node) error {
	cur := root
	for i, name := range path {
		var found *yaml.Node
		for j := 0; j+1 < len(cur.Content); j += 2 {
			if cur.Content[j].Value == name {
				found = cur.Content[j+1]
				if i == len(path)-1 {
					n.HeadComment, n.LineComment = found.HeadComment, found.LineComment
					cur.Content[j+1] = n
					return nil
				}
				break
			}
		}
		if i == len(path)-1 {
			cur.Content = append(cur.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, n)
			return nil
		}
		if found == nil || found.Kind == yaml.ScalarNode && found.Tag == "!!null" {
			m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			if found == nil {
				cur.Content = append(cur.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, m)
			} else {
				*found = *m
				m = found
			}
			cur = m
			continue
		}
		if found.Kind != yaml.MappingNode {
			return fmt.Errorf("%q is not a mapping", strings.Join(path[:i+1], "."))
		}
		cur = found
	}
	return nil
}

// removeKey deletes path from root and prunes mappings left empty.
func removeKey(root *yaml.Node, path []string) bool {
	for j := 0; j+1 < len(root.Content); j += 2 {
		if root.Content[j].Value != path[0] {
			continue
		}
		if len(path) == 1 {
			root.Content = append(root.Content[:j], root.Content[j+2:]...)
			return true
		}
		child := root.Content[j+1]
		if child.Kind != yaml.MappingNode || !removeKey(child, path[1:]) {
			return false
		}
		if len(child.Content) == 0 {
			root.Content = append(root.Content[:j], root.Content[j+2:]...)
		}
		return true
	}
	return false
}

// writeAtomic replaces path with data through a temporary file in the same
// directory.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
