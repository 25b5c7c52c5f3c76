package chain

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// The Uwf-Start trailer: every step and cancel commit names the start
// commit of its chain, and that commit's branch, so that a listing learns
// a thread's start from its head commit instead of walking the chain down
// to its root (list_starts.go).
//
// The value is "<start commit in hex>" or "<start commit in hex> <branch>",
// the branch being the start commit's Uwf-Branch trailer. It is a claim
// made by whoever wrote the commit: git-uwf writes it from the commit it
// appends to (AppendStep, Cancel), and sync refuses a fetched chain whose
// claims do not name its real start (CheckStartTrailer). Commits written
// before the trailer existed have none, and the start is found by the walk
// as before.

// StartTrailer names the start commit of a step's or cancel's chain, and
// that commit's branch.
const StartTrailer = "Uwf-Start"

// startTrailerValue formats st as an Uwf-Start value; false when it could
// not be one trailer line as message writes them (a branch with white space
// or control characters, or a value longer than message keeps of any
// trailer), in which case no trailer is written and readers walk.
func startTrailerValue(st startInfo) (string, bool) {
	v := st.commit.String()
	if st.branch != "" {
		if strings.ContainsFunc(st.branch, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			return "", false
		}
		v += " " + st.branch
	}
	return v, utf8.RuneCountInString(v) <= maxTrailerValue
}

// parseStartTrailerValue parses an Uwf-Start value; false when it is not
// one ("" included).
func parseStartTrailerValue(v string) (startInfo, bool) {
	var st startInfo
	oid, branch, hasBranch := strings.Cut(v, " ")
	if !isSHA1Hex(oid) || hasBranch && branch == "" {
		return st, false
	}
	if _, err := hex.Decode(st.commit[:], []byte(oid)); err != nil || st.commit.IsZero() {
		return st, false
	}
	st.branch = branch
	return st, true
}

// claimedStart is the start an Uwf-Start trailer of msg claims; false when
// msg has none, or one that does not parse (it is then ignored: the walk
// decides).
func claimedStart(msg string) (startInfo, bool) {
	v := trailerValue(msg, StartTrailer)
	if v == "" {
		return startInfo{}, false
	}
	return parseStartTrailerValue(v)
}

// startTrailerOf returns the Uwf-Start trailer line ("Uwf-Start: …\n") for
// a commit appended on top of head, "" when none can be written.
func (r *Repo) startTrailerOf(ctx context.Context, head gitobj.Hash) string {
	st, err := r.walkToStart(ctx, head, newStartCommits(4))
	if err != nil {
		return "" // readers walk, and meet the same error
	}
	v, ok := startTrailerValue(st)
	if !ok {
		return ""
	}
	return StartTrailer + ": " + v + "\n"
}

// CheckStartTrailer checks the Uwf-Start trailer of msg, the message of a
// commit of a chain whose start commit is root with the message rootMsg.
// A commit without the trailer passes (chains written before it existed);
// one whose trailer does not parse, or names another commit or another
// branch than the root's Uwf-Branch, does not: listings would take its
// word for the thread's start.
func CheckStartTrailer(msg string, root gitobj.Hash, rootMsg string) error {
	v := trailerValue(msg, StartTrailer)
	if v == "" {
		return nil
	}
	st, ok := parseStartTrailerValue(v)
	if !ok {
		return fmt.Errorf("malformed %s trailer %q", StartTrailer, v)
	}
	if st.commit != root {
		return fmt.Errorf("its %s trailer names %s, but its chain starts at %s", StartTrailer, st.commit, root)
	}
	if want := trailerValue(rootMsg, BranchTrailer); st.branch != want {
		return fmt.Errorf("its %s trailer names the branch %q, but its start commit %s records %q", StartTrailer, st.branch, root, want)
	}
	return nil
}
