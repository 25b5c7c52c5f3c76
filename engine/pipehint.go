package engine

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kballard/go-shellquote"
)

// withPipeHint adds advice to the error of an agent whose stdout is not the
// agent protocol but looks like a deliverable (YAML frontmatter, then
// markdown): the command is an agent CLI or script meant to be run through
// the pipe agent, which turns such output into a step.
func withPipeHint(err error, stdout []byte, argv []string) error {
	if err == nil || !looksLikeFrontmatter(stdout) {
		return err
	}
	line := "git uwf agent pipe -- " + shellquote.Join(argv...)
	quoted := `"` + line + `"`
	if strings.ContainsAny(line, "\"$`\\") {
		quoted = shellquote.Join(line)
	}
	return fmt.Errorf("%w\nhint: the command printed YAML frontmatter, a deliverable, not the agent protocol; "+
		"run it through the pipe agent: --agent %s", err, quoted)
}

// looksLikeFrontmatter reports whether out starts (after blank lines) with
// a "---" line followed later by a closing "---" line.
func looksLikeFrontmatter(out []byte) bool {
	s := strings.TrimLeft(string(bytes.ReplaceAll(out, []byte("\r\n"), []byte("\n"))), " \t\n")
	rest, ok := strings.CutPrefix(s, "---\n")
	return ok && (strings.Contains(rest, "\n---\n") || strings.HasSuffix(rest, "\n---") || strings.HasPrefix(rest, "---\n"))
}
