package config

import (
	"fmt"
	"slices"
	"strings"
)

// kind is the type of a configuration value.
type kind int

const (
	kindMap      kind = iota // a mapping of further keys
	kindString               // a string
	kindDuration             // a Go duration ("30m", "90s")
	kindInt                  // a non-negative integer
	kindBool                 // true or false
	kindCommand              // a shell-quoted command line or an argv list
	kindList                 // a list of strings (a single string is a list of one)
)

func (k kind) String() string {
	switch k {
	case kindMap:
		return "mapping"
	case kindString:
		return "string"
	case kindDuration:
		return "duration (like 90s or 30m)"
	case kindInt:
		return "non-negative integer"
	case kindBool:
		return "boolean"
	case kindCommand:
		return "command line (a string or a list of strings)"
	case kindList:
		return "list of strings"
	}
	return "value"
}

// keySpec describes one level of the key tree. A child named "*" matches
// any name (an alias, a workflow, a role, …).
type keySpec struct {
	name     string
	kind     kind
	team     bool // the team file may set it
	children []*keySpec
}

func leaf(name string, k kind) *keySpec { return &keySpec{name: name, kind: k} }

func teamLeaf(name string, k kind) *keySpec { return &keySpec{name: name, kind: k, team: true} }

func group(name string, children ...*keySpec) *keySpec {
	return &keySpec{name: name, kind: kindMap, children: children}
}

// rootSpec returns the tree of every key a configuration file may contain.
func rootSpec() *keySpec {
	return group("",
		teamLeaf("defaultAgent", kindString),
		leaf("timeout", kindDuration),
		group("agents", group("*",
			leaf("command", kindCommand),
			leaf("timeout", kindDuration),
			group("env", leaf("*", kindString)),
		)),
		group("overrides", group("*", teamLeaf("*", kindString))),
		group("extraction",
			teamLeaf("retries", kindInt),
			leaf("llm", kindBool),
			leaf("model", kindString),
		),
		group("providers", group("*",
			leaf("baseUrl", kindString),
			leaf("apiKeyEnv", kindString),
		)),
		group("models", group("*",
			leaf("provider", kindString),
			leaf("name", kindString),
		)),
		group("redaction",
			leaf("enabled", kindBool),
			leaf("patterns", kindList),
		),
		group("workflows", group("*",
			leaf("concurrency", kindInt),
			leaf("overflow", kindString),
			leaf("maxQueue", kindInt),
		)),
	)
}

// child returns the spec for name below s, or nil.
func (s *keySpec) child(name string) *keySpec {
	var wild *keySpec
	for _, c := range s.children {
		if c.name == name {
			return c
		}
		if c.name == "*" {
			wild = c
		}
	}
	return wild
}

// teamAllowed reports whether the team file may set anything below s.
func (s *keySpec) teamAllowed() bool {
	if s.kind != kindMap {
		return s.team
	}
	return slices.ContainsFunc(s.children, (*keySpec).teamAllowed)
}

// lookupKey finds the spec of a dotted key, which must name a value (not a
// mapping).
func lookupKey(key string) ([]string, *keySpec, error) {
	if key == "" {
		return nil, nil, fmt.Errorf("empty configuration key")
	}
	path := strings.Split(key, ".")
	s := rootSpec()
	for i, p := range path {
		if p == "" {
			return nil, nil, fmt.Errorf("configuration key %q has an empty part", key)
		}
		c := s.child(p)
		if c == nil {
			return nil, nil, unknownKeyError(path[:i+1], s)
		}
		s = c
	}
	if s.kind == kindMap {
		return nil, nil, fmt.Errorf("configuration key %q is a section, not a value; keys below it: %s", key, childNames(s))
	}
	return path, s, nil
}

func unknownKeyError(path []string, parent *keySpec) error {
	key := strings.Join(path, ".")
	if last := path[len(path)-1]; strings.EqualFold(last, "apiKey") {
		return fmt.Errorf("unknown key %q: secrets are never stored in configuration files; put the key in the environment or in the user-level .env and name the variable with apiKeyEnv", key)
	}
	return fmt.Errorf("unknown key %q (expected one of: %s)", key, childNames(parent))
}

func childNames(s *keySpec) string {
	var names []string
	for _, c := range s.children {
		if c.name == "*" {
			names = append(names, "<name>")
		} else {
			names = append(names, c.name)
		}
	}
	return strings.Join(names, ", ")
}

// isSecretName reports whether a key segment names a secret whose value
// must be masked when listed.
func isSecretName(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
	return strings.HasSuffix(n, "apikey") || strings.Contains(n, "token") ||
		strings.Contains(n, "secret") || strings.Contains(n, "password")
}
