package review

import (
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/objects"
)

// maxTrailerValue bounds how much of a trailer value is kept: a longer
// value is garbage and is reported clipped.
const maxTrailerValue = 200

// StepTrailers returns the values of every Uwf-Step trailer line in a commit
// message, in order, without duplicates. Unlike git's own trailer parser it
// looks at every line, not only the last paragraph, so the trailers survive
// a squash (where each squashed message keeps its own trailer block), the
// indented messages of git merge --squash, and a "(cherry picked from …)"
// line after them. The key is matched case-insensitively.
func StepTrailers(msg string) []string {
	var out []string
	seen := map[string]bool{}
	for line := range strings.SplitSeq(msg, "\n") {
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), chain.StepTrailer) {
			continue
		}
		value = strings.TrimSpace(value)
		if value == "" || seen[value] {
			continue
		}
		seen[value] = true
		out = append(out, value)
	}
	return out
}

// trailerRef is a parsed Uwf-Step value: either a thread and the commit the
// step started from (what the engine writes), or a step alias (or prefix).
type trailerRef struct {
	Thread string // upper-case ULID or ULID prefix; empty for an alias
	Head   string // lower-case hex prefix of the commit the step started on
	Alias  string // upper-case step alias or prefix; empty for thread@head
}

// parseTrailer parses one Uwf-Step value.
func parseTrailer(v string) (trailerRef, error) {
	shown := v
	if len(shown) > maxTrailerValue {
		shown = shown[:maxTrailerValue] + "…"
	}
	bad := func(why string) error {
		return fmt.Errorf("%s trailer %q: %s; want <thread>@<commit> (as in $UWF_STEP_TRAILER) or a step alias", chain.StepTrailer, shown, why)
	}
	if len(v) > maxTrailerValue {
		return trailerRef{}, bad("too long")
	}
	idPart, headPart, ok := strings.Cut(v, "@")
	if !ok {
		a := strings.ToUpper(v)
		if len(a) < 4 || len(a) > 13 || !crockford(a) {
			return trailerRef{}, bad("not a step alias")
		}
		if len(a) == 13 && !objects.IsAlias(a) {
			return trailerRef{}, bad("not a step alias")
		}
		return trailerRef{Alias: a}, nil
	}
	id := strings.ToUpper(strings.TrimSpace(idPart))
	head := strings.ToLower(strings.TrimSpace(headPart))
	switch {
	case len(id) < 4 || len(id) > 26 || !crockford(id):
		return trailerRef{}, bad("the thread is not a thread id")
	case len(id) == 26:
		if _, err := chain.ParseThreadID(id); err != nil {
			return trailerRef{}, bad("the thread is not a thread id")
		}
	}
	if len(head) < 4 || len(head) > 40 || strings.Trim(head, "0123456789abcdef") != "" {
		return trailerRef{}, bad("the part after @ is not a commit id")
	}
	return trailerRef{Thread: id, Head: head}, nil
}

func crockford(s string) bool {
	return s != "" && strings.Trim(s, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") == ""
}
