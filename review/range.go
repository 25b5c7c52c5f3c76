package review

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// ErrBadRange is wrapped by every error about the range argument itself:
// it does not parse, or there is no default to fall back on.
var ErrBadRange = errors.New("bad range")

// span is a resolved range: the revisions git log takes, and what to call it.
type span struct {
	Display string   // the range as the user gave it, or the default spelled out
	Revs    []string // full object ids, "^"-prefixed for exclusions
}

// resolveRange turns the range argument into revisions for git log. The
// empty range is HEAD against its upstream's merge base; a single revision
// R means R..HEAD; anything with ".." is git's own range syntax.
func resolveRange(ctx context.Context, g *gitrepo.Runner, arg string) (span, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return defaultRange(ctx, g)
	}
	if strings.HasPrefix(arg, "-") {
		return span{}, fmt.Errorf("%w: range %q looks like an option; give a revision range such as main..HEAD", ErrBadRange, arg)
	}
	spec := arg
	if !strings.Contains(arg, "..") {
		spec = arg + "..HEAD"
	}
	out, err := g.Output(ctx, "rev-parse", spec, "--")
	if err != nil || out == "" {
		return span{}, fmt.Errorf("%w: range %q does not name commits of this repository%s", ErrBadRange, arg, gitReason(err))
	}
	var revs []string
	for _, r := range strings.Fields(out) {
		if r == "--" {
			continue
		}
		revs = append(revs, r)
		if h := strings.TrimPrefix(r, "^"); len(h) != 40 || strings.Trim(h, "0123456789abcdef") != "" {
			return span{}, fmt.Errorf("%w: range %q: git resolved it to %q, not to commits", ErrBadRange, arg, r)
		}
	}
	if len(revs) == 0 {
		return span{}, fmt.Errorf("%w: range %q names no commits", ErrBadRange, arg)
	}
	return span{Display: spec, Revs: revs}, nil
}

// defaultRange is HEAD against the merge base with HEAD's upstream.
func defaultRange(ctx context.Context, g *gitrepo.Runner) (span, error) {
	branch, err := g.Output(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil || branch == "" {
		return span{}, fmt.Errorf("%w: HEAD is detached, so it has no upstream to compare with: pass the range to review, e.g. git uwf review origin/main..HEAD", ErrBadRange)
	}
	upstream, err := g.Output(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
	if err != nil || upstream == "" {
		return span{}, fmt.Errorf("%w: branch %s has no upstream: pass the range to review (e.g. git uwf review main..%s) or set one with git branch --set-upstream-to", ErrBadRange, branch, branch)
	}
	base, err := g.Output(ctx, "merge-base", "HEAD", "@{upstream}")
	if err != nil || base == "" {
		return span{}, fmt.Errorf("%w: branch %s and its upstream %s share no history: pass the range to review%s", ErrBadRange, branch, upstream, gitReason(err))
	}
	head, err := g.Output(ctx, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return span{}, fmt.Errorf("%w: HEAD does not name a commit yet%s", ErrBadRange, gitReason(err))
	}
	return span{Display: upstream + "..." + branch, Revs: []string{head, "^" + base}}, nil
}

// gitReason is ": <git's first stderr line>" for a git error, else "".
func gitReason(err error) string {
	var ge *gitrepo.GitError
	if errors.As(err, &ge) {
		if msg := strings.TrimSpace(strings.SplitN(strings.TrimSpace(ge.Stderr), "\n", 2)[0]); msg != "" {
			return " (" + strings.TrimPrefix(msg, "fatal: ") + ")"
		}
	}
	return ""
}
