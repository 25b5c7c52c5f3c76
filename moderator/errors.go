package moderator

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one thing wrong with a workflow, located in its source.
// Line and Col are 1-based; 0 means unknown (e.g. a workflow rebuilt from a
// stored document has no lines).
type Problem struct {
	File    string
	Line    int
	Col     int
	Message string
}

// String formats the problem as "file:line:col: message", leaving out the
// parts of the position that are unknown.
func (p Problem) String() string {
	file := p.File
	if file == "" {
		file = "<input>"
	}
	switch {
	case p.Line > 0 && p.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", file, p.Line, p.Col, p.Message)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d: %s", file, p.Line, p.Message)
	default:
		return fmt.Sprintf("%s: %s", file, p.Message)
	}
}

// ValidationError carries every problem found in a workflow. Load, Parse and
// FromDocument return it (check with errors.As) whenever the workflow is
// malformed or semantically invalid.
type ValidationError struct {
	Problems []Problem
}

// Error prints one problem per line as "file:line:col: message".
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// problems collects problems while a workflow is loaded and validated.
type problems struct {
	list []Problem
}

func (ps *problems) add(at *node, format string, args ...any) {
	if at != nil && at.broken {
		return // the failed include is reported already
	}
	p := Problem{Message: fmt.Sprintf(format, args...)}
	if at != nil {
		p.File, p.Line, p.Col = at.file, at.line, at.col
	}
	ps.list = append(ps.list, p)
}

func (ps *problems) addFile(file string, line, col int, format string, args ...any) {
	ps.list = append(ps.list, Problem{File: file, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
}

// err returns the collected problems sorted by position (file order), or nil.
func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	list := append([]Problem(nil), ps.list...)
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return &ValidationError{Problems: list}
}
