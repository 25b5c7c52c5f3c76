package objects

import (
	"errors"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

var (
	// ErrNotFound means no object with the given alias, prefix or oid is known.
	ErrNotFound = errors.New("node not found")
	// ErrNotNode means the bytes are not a canonical node blob.
	ErrNotNode = errors.New("not a node")
	// ErrNotSchema means a node used as a type is not a schema node.
	ErrNotSchema = errors.New("not a schema node")
)

// AliasCollisionError reports that several different blobs hash to the same
// alias. OIDs lists every verified blob.
type AliasCollisionError struct {
	Alias Alias
	OIDs  []gitobj.Hash
}

func (e *AliasCollisionError) Error() string {
	ids := make([]string, len(e.OIDs))
	for i, h := range e.OIDs {
		ids[i] = h.String()
	}
	return fmt.Sprintf("alias %s is ambiguous: %d different blobs hash to it (%s)", e.Alias, len(e.OIDs), strings.Join(ids, ", "))
}

// AmbiguousPrefixError reports that an alias prefix matches several aliases.
type AmbiguousPrefixError struct {
	Prefix  string
	Matches []Alias
}

func (e *AmbiguousPrefixError) Error() string {
	ms := make([]string, len(e.Matches))
	for i, a := range e.Matches {
		ms[i] = string(a)
	}
	return fmt.Sprintf("alias prefix %s is ambiguous: matches %s", e.Prefix, strings.Join(ms, ", "))
}

// ValidationError reports why a payload does not match its type, or why a
// schema does not compile. Each violation reads "at /json/pointer: message".
type ValidationError struct {
	Type       Alias
	Title      string
	Violations []string
}

func (e *ValidationError) Error() string {
	var sb strings.Builder
	name := string(e.Type)
	if e.Title != "" {
		name += " (" + e.Title + ")"
	}
	n := len(e.Violations)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	fmt.Fprintf(&sb, "payload does not match schema %s: %d violation%s", name, n, plural)
	for _, v := range e.Violations {
		sb.WriteString("\n  - ")
		sb.WriteString(v)
	}
	return sb.String()
}
