package chain

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// Finding threads and steps: listing thread ids, resolving a thread id
// prefix, and resolving a step by commit, alias or step trailer.

// ThreadIDs lists every thread id (refs/uwf/threads/*), oldest first.
func (r *Repo) ThreadIDs(ctx context.Context) ([]ThreadID, map[ThreadID]gitobj.Hash, error) {
	refs, err := r.ListRefs(ctx, ThreadsPrefix)
	if err != nil {
		return nil, nil, fmt.Errorf("list threads: %w", err)
	}
	ids := make([]ThreadID, 0, len(refs))
	heads := make(map[ThreadID]gitobj.Hash, len(refs))
	for _, ref := range refs {
		id, err := ParseThreadID(strings.TrimPrefix(ref.Name, ThreadsPrefix))
		if err != nil {
			continue // not ours; ignore foreign refs in the namespace
		}
		ids = append(ids, id)
		heads[id] = gitobj.NewHash(ref.OID)
	}
	return ids, heads, nil
}

// ResolveThread turns a full id or an unambiguous prefix into a ThreadID.
func (r *Repo) ResolveThread(ctx context.Context, s string) (ThreadID, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if id, err := ParseThreadID(s); err == nil {
		head, err := r.resolveRef(id.Ref())
		if err != nil {
			return "", err
		}
		if head.IsZero() {
			return "", fmt.Errorf("thread %s: %w", id, ErrUnknownThread)
		}
		return id, nil
	}
	if len(s) < 4 || len(s) > 26 || strings.Trim(s, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") != "" {
		return "", fmt.Errorf("invalid thread id %q: want a ULID or a prefix of at least 4 characters", s)
	}
	ids, _, err := r.ThreadIDs(ctx)
	if err != nil {
		return "", err
	}
	var matches []ThreadID
	for _, id := range ids {
		if strings.HasPrefix(string(id), s) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("thread %s: %w", s, ErrUnknownThread)
	case 1:
		return matches[0], nil
	default:
		return "", fmt.Errorf("thread prefix %s is ambiguous: %d threads match (%s, %s, …)", s, len(matches), matches[0], matches[1])
	}
}

// FindStep resolves a step by commit oid (full or ≥4-hex prefix) or by the
// alias (or alias prefix) of its node, searching every thread's chain.
func (r *Repo) FindStep(ctx context.Context, s string) (*Entry, error) {
	s = strings.TrimSpace(s)
	if len(s) < 4 {
		return nil, fmt.Errorf("step %q: give at least 4 characters of a step alias or commit id", s)
	}
	if out, err := r.Git.Output(ctx, "rev-parse", "--verify", "--quiet", s+"^{commit}"); err == nil && out != "" {
		commit := gitobj.NewHash(out)
		if e, err := r.Entry(ctx, commit); err == nil {
			return e, nil
		}
		// A code commit made during a step points back with a trailer.
		if c, err := gitobj.GetCommit(r.Store.Storer(), commit); err == nil {
			if v, ok := trailers(c.Message)[StepTrailer]; ok {
				return r.followStepTrailer(ctx, strings.TrimSpace(v))
			}
		}
	}
	upper := strings.ToUpper(s)
	if strings.Trim(upper, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") != "" {
		return nil, fmt.Errorf("step %q: %w", s, ErrUnknownStep)
	}
	_, heads, err := r.ThreadIDs(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[gitobj.Hash]bool{}
	var found []*Entry
	for _, head := range heads {
		for c := head; !c.IsZero() && !seen[c]; {
			seen[c] = true
			e, err := r.Entry(ctx, c)
			if err != nil {
				break
			}
			if strings.HasPrefix(string(e.Node.Alias), upper) {
				found = append(found, e)
			}
			c = e.Parent
			if e.Kind == KindStart {
				break
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("step %s: %w", s, ErrUnknownStep)
	case 1:
		return found[0], nil
	}
	for _, e := range found[1:] {
		if e.Node.Alias != found[0].Node.Alias {
			return nil, fmt.Errorf("step prefix %s is ambiguous (%s, %s, …)", s, found[0].Node.Alias, e.Node.Alias)
		}
	}
	return found[0], nil
}

// StepTrailer is the commit trailer that ties a code commit to the step
// that made it. Its value is "<thread-id>@<commit the step started from>"
// (what the engine exports as UWF_STEP_TRAILER) or a step alias.
const StepTrailer = "Uwf-Step"

// StepTrailerValue is the trailer value for a step starting on head.
func StepTrailerValue(id ThreadID, head gitobj.Hash) string {
	return string(id) + "@" + head.String()[:12]
}

func (r *Repo) followStepTrailer(ctx context.Context, v string) (*Entry, error) {
	idPart, headPart, ok := strings.Cut(v, "@")
	if !ok {
		if objects.IsAlias(strings.ToUpper(v)) {
			return r.FindStep(ctx, v)
		}
		return nil, fmt.Errorf("%s trailer %q: want <thread>@<commit> or a step alias", StepTrailer, v)
	}
	id, err := r.ResolveThread(ctx, idPart)
	if err != nil {
		return nil, fmt.Errorf("%s trailer %q: %w", StepTrailer, v, err)
	}
	t, err := r.Thread(ctx, id)
	if err != nil {
		return nil, err
	}
	entries, err := r.Chain(ctx, t.Head.Commit)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Kind == KindStep && strings.HasPrefix(e.Parent.String(), strings.ToLower(headPart)) {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%s trailer %q: thread %s has no step on top of %s (not recorded yet, or on another fork): %w", StepTrailer, v, id, headPart, ErrUnknownStep)
}
