package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ZeroOID is the all-zero object id: as an old value it means "the ref must
// not exist yet"; as a new value it means "delete the ref".
const ZeroOID = "0000000000000000000000000000000000000000"

// RefUpdate is one compare-and-swap: move Ref from Old to New.
type RefUpdate struct {
	Ref string
	New string
	Old string
}

// RefConflictError means a ref was not at the expected old value: someone
// else moved it first. Nothing was changed.
type RefConflictError struct {
	Ref    string
	Detail string
}

func (e *RefConflictError) Error() string {
	return fmt.Sprintf("ref %s moved concurrently: %s", e.Ref, e.Detail)
}

// RefLockedError means a ref's lock file exists: another git process is
// updating it, or one crashed and left the lock behind. Nothing changed.
type RefLockedError struct {
	Ref      string
	LockFile string
}

func (e *RefLockedError) Error() string {
	return fmt.Sprintf("ref %s is locked by %s (another git process is updating it, or one crashed; remove the file if no git process is running)", e.Ref, e.LockFile)
}

var (
	lockFailure = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`cannot lock ref '([^']+)': (.*)`) })
	lockExists  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Unable to create '([^']+\.lock)': File exists`) })
)

// UpdateRefs applies all updates in one atomic `git update-ref --stdin`
// transaction: either every ref moves from its Old to its New value, or
// none moves. A lost race yields *RefConflictError.
func (r *Runner) UpdateRefs(ctx context.Context, reflogMsg string, updates ...RefUpdate) error {
	if len(updates) == 0 {
		return nil
	}
	var in bytes.Buffer
	in.WriteString("start\n")
	for _, u := range updates {
		if strings.ContainsAny(u.Ref, " \n\x00") {
			return fmt.Errorf("update ref: invalid ref name %q", u.Ref)
		}
		fmt.Fprintf(&in, "update %s %s %s\n", u.Ref, u.New, u.Old)
	}
	in.WriteString("prepare\ncommit\n")
	args := []string{"update-ref", "--stdin"}
	if reflogMsg = reflogMessage(reflogMsg); reflogMsg != "" {
		args = append(args, "-m", reflogMsg)
	}
	// Every value is a full object id, which git would otherwise also look
	// up as a ref name, to warn when one is ambiguous: ~18 stat calls per
	// value, most of update-ref's system calls in a large transaction.
	if _, err := r.WithConfig("core.warnAmbiguousRefs=false").Run(ctx, &in, args...); err != nil {
		var ge *GitError
		if errors.As(err, &ge) {
			if m := lockExists().FindStringSubmatch(ge.Stderr); m != nil {
				ref := ""
				if lf := lockFailure().FindStringSubmatch(ge.Stderr); lf != nil {
					ref = lf[1]
				}
				return &RefLockedError{Ref: ref, LockFile: m[1]}
			}
			if m := lockFailure().FindStringSubmatch(ge.Stderr); m != nil {
				return &RefConflictError{Ref: m[1], Detail: strings.TrimSpace(m[2])}
			}
		}
		return fmt.Errorf("update refs: %w", err)
	}
	return nil
}

// RefEntry is one line of for-each-ref.
type RefEntry struct {
	Name string
	OID  string
}

// ForEachRef lists refs under the given patterns (e.g. "refs/uwf/threads/").
func (r *Runner) ForEachRef(ctx context.Context, patterns ...string) ([]RefEntry, error) {
	args := append([]string{"for-each-ref", "--format=%(objectname) %(refname)"}, patterns...)
	out, err := r.Run(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	var refs []RefEntry
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		oid, name, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		refs = append(refs, RefEntry{Name: name, OID: oid})
	}
	return refs, nil
}

// ListRefs is ForEachRef for the repository whose common git directory is
// commonDir: it reads the ref files in-process when ReadRefs can answer,
// and runs `git for-each-ref` otherwise.
func (r *Runner) ListRefs(ctx context.Context, commonDir string, patterns ...string) ([]RefEntry, error) {
	if refs, ok, err := ReadRefs(commonDir, patterns...); ok && err == nil {
		return refs, nil
	}
	return r.ForEachRef(ctx, patterns...)
}

// maxReflogMessage bounds the reflog message, which travels in argv.
const maxReflogMessage = 300

// reflogMessage makes msg fit an argument: one line without NUL bytes or
// other control characters, at most maxReflogMessage bytes. Messages are
// partly made of agent output, which must never make an argument the
// kernel refuses (a NUL) or one too long to start git.
func reflogMessage(msg string) string {
	msg = strings.Join(strings.FieldsFunc(strings.ToValidUTF8(msg, "\uFFFD"), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if len(msg) > maxReflogMessage {
		n := maxReflogMessage
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n--
		}
		msg = msg[:n]
	}
	return msg
}
