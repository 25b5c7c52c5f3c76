package chain

import (
	"context"
	"unicode/utf8"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// StepRow is what the step table (`thread steps`) shows of one entry of a
// chain: less than StepInfo, so that a long thread's table is built
// without decoding every step node in full.
type StepRow struct {
	Kind   EntryKind
	Alias  objects.Alias
	Commit gitobj.Hash
	// Role, Agent, Status and DurationMs are set for steps; Status is
	// "cancelled" for a cancel entry.
	Role, Agent, Status string
	DurationMs          int64
}

// StepRows lists the rows of the step table of the chain from the start to
// head. A step node is read only for the members the row shows; one that
// the field-by-field decoder would not take, or whose output has no plain
// status, is decoded in full as Chain decodes it, so the rows always say
// what the decoded entries say.
func (r *Repo) StepRows(ctx context.Context, head gitobj.Hash) ([]StepRow, error) {
	chain, err := r.chain(ctx, head, false)
	if err != nil {
		return nil, err
	}
	rows := make([]StepRow, len(chain))
	for i, e := range chain {
		row := &rows[i]
		row.Kind, row.Alias, row.Commit = e.Kind, e.Node.Alias, e.Commit
		switch e.Kind {
		case KindStep:
			if e.Step == nil && e.output != nil {
				if s, ok := summarizeStep(e.Node.Payload); ok {
					if status, ok := statusField(e.output); ok {
						row.Role, row.Agent, row.Status = s.Role, s.Agent, status
						row.DurationMs = s.CompletedAtMs - s.StartedAtMs
						continue
					}
				}
			}
			if err := decodePayload(e); err != nil {
				return nil, err
			}
			if row.Status, err = r.OutputStatus(e); err != nil {
				return nil, err
			}
			row.Role, row.Agent = e.Step.Role, e.Step.Agent
			row.DurationMs = e.Step.CompletedAtMs - e.Step.StartedAtMs
		case KindCancel:
			row.Status = "cancelled"
		}
	}
	return rows, nil
}

// summarizeStep reads the role, agent and times of a StepNode payload into
// a StepNode, leaving the other members unset. It reports true only when
// decodeStepNode would decode the payload field by field (every member
// known, none repeated, every value of a form its setter takes), so the
// members it sets are those decodeStepNode sets. Where it cannot tell
// without decoding (an escaped string, a redactions map), it reports
// false and the caller decodes the node in full.
func summarizeStep(p []byte) (StepNode, bool) {
	var (
		v    StepNode
		seen uint32
	)
	ok := jsonMembers(p, func(key, val []byte) bool {
		i := fieldIndex(stepNodeFields, key)
		if !first(&seen, i) {
			return false
		}
		switch stepNodeFields[i].key {
		case "role":
			return setString(val, &v.Role)
		case "agent":
			return setString(val, &v.Agent)
		case "startedAtMs":
			return setInt64(string(val), &v.StartedAtMs)
		case "completedAtMs":
			return setInt64(string(val), &v.CompletedAtMs)
		case "attempts":
			var n int64
			return setInt64(string(val), &n)
		case "resumed":
			var b bool
			return setBool(string(val), &b)
		default:
			// The other members hold strings (or aliases); any other
			// form, and a string setString would unescape, is left to
			// the full decoder.
			return isNull(val) || plainString(val)
		}
	})
	return v, ok
}

// plainString reports whether val is a quoted JSON string of valid UTF-8
// that needs no unescaping: one that setString takes as it is.
func plainString(val []byte) bool {
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
		return false
	}
	inner := val[1 : len(val)-1]
	for _, c := range inner {
		if c == '\\' || c < 0x20 || c == '"' {
			return false
		}
	}
	return utf8.Valid(inner)
}
