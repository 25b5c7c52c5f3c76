package chain

import (
	"strings"

	"github.com/git-uwf/git-uwf/internal/text"
)

// Summarize picks a one-line summary of a step, at most width runes: the
// first non-blank of the output's usual fields (summary, title, reason,
// comments, plan), else the first line of body that is not blank, a
// frontmatter delimiter or bare markdown decoration.
func Summarize(body string, output map[string]any, width int) string {
	for _, key := range []string{"summary", "title", "reason", "comments", "plan"} {
		if v, ok := output[key].(string); ok && strings.TrimSpace(v) != "" {
			return text.Clip(text.OneLine(v), width)
		}
	}
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#>*- "))
		if line != "" && line != "---" {
			return text.Clip(text.OneLine(line), width)
		}
	}
	return ""
}
