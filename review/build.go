package review

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/text"
)

// Options select what Build reviews.
type Options struct {
	// Range is a git revision range ("main..HEAD", "A...B"), a single
	// revision R meaning R..HEAD, or "" for HEAD against the merge base
	// with its upstream.
	Range string
	// Remote, when set, is the remote a reviewer fetches threads from:
	// every thread holding a step of the range must be there (git
	// ls-remote, one network round trip).
	Remote string
}

// maxTrailersPerCommit bounds the trailers followed in one commit: a squash
// of a long branch has tens, a message written to slow review down has more.
const maxTrailersPerCommit = 64

// windowSlack widens a step's [started, completed] window when matching a
// code commit's author time (whole seconds) against it.
const windowSlack = 2 * time.Second

// builder holds what one Build has read.
type builder struct {
	repo     *chain.Repo
	lines    map[chain.ThreadID]*line
	families map[gitobj.Hash]*family // by the start commit
	missing  map[string]error        // thread ids that do not resolve
	byName   map[string]*line        // thread ids and prefixes as trailers spell them
	// remote and remoteHeads are the --remote and its threads, listed
	// before any trailer is resolved.
	remote      string
	remoteHeads map[chain.ThreadID]gitobj.Hash
	// tracking and remotes are read once, on the first thread that is
	// not here.
	tracking []trackedThread
	remotes  []string
}

// trackedThread is a thread under a remote's namespace
// (refs/remotes/<remote>/uwf/threads/<id>).
type trackedThread struct{ remote, id string }

// trackingThreads lists the threads under every remote's namespace, with
// one git for-each-ref.
func (b *builder) trackingThreads(ctx context.Context) []trackedThread {
	out, _ := b.repo.Git.Output(ctx, "for-each-ref", "--format=%(refname)", "refs/remotes/")
	list := []trackedThread{}
	for name := range strings.FieldsSeq(out) {
		remote, rest, ok := strings.Cut(strings.TrimPrefix(name, "refs/remotes/"), "/uwf/threads/")
		if ok && !strings.Contains(remote, "/uwf/") {
			list = append(list, trackedThread{remote: remote, id: rest})
		}
	}
	return list
}

// line is one thread ref and its chain.
type line struct {
	id      chain.ThreadID
	thread  *chain.Thread
	entries []*chain.Entry
	index   map[gitobj.Hash]int // commit → position in entries
	parents []string            // hex of each entry's parent, for trailer prefixes
	family  *family
}

// family is every thread that shares a start commit (a thread and its forks).
type family struct {
	start gitobj.Hash
	lines []*line // by id
}

func newBuilder(repo *chain.Repo) *builder {
	return &builder{repo: repo, lines: map[chain.ThreadID]*line{}, families: map[gitobj.Hash]*family{}, missing: map[string]error{}, byName: map[string]*line{}}
}

// Build reads the range and resolves every trailer. Errors are for a range
// that cannot be read (wrapping ErrBadRange) and failures of git itself;
// what a reviewer could not follow is in Report.Problems.
func Build(ctx context.Context, repo *chain.Repo, opts Options) (*Report, error) {
	b := newBuilder(repo)
	s, err := resolveRange(ctx, repo.Git, opts.Range)
	if err != nil {
		return nil, err
	}
	commits, err := b.readLog(ctx, s)
	if err != nil {
		return nil, err
	}
	if opts.Remote != "" {
		b.remote = opts.Remote
		if _, err := b.listRemote(ctx, opts.Remote); err != nil {
			return nil, err
		}
	}
	if err := b.prefetch(ctx, commits); err != nil {
		return nil, err
	}
	rep := &Report{Range: s.Display, Commits: make([]Commit, 0, len(commits)), Threads: []Thread{}, Problems: []Problem{}}
	held := map[gitobj.Hash][]string{} // step commit → code commits naming it
	var order []*line                  // lines in order of first appearance
	namedAs := map[*line][]string{}
	for _, cc := range commits {
		c := Commit{Commit: cc.Commit, Short: shortID(cc.Commit), Subject: cc.Subject, Author: cc.Author, Time: cc.Time, Steps: []StepLink{}}
		values := cc.Values
		if len(values) > maxTrailersPerCommit {
			rep.Problems = append(rep.Problems, Problem{Commit: cc.Commit, Message: fmt.Sprintf(
				"the commit carries %d %s trailers; only the first %d are followed", len(values), chain.StepTrailer, maxTrailersPerCommit)})
			values = values[:maxTrailersPerCommit]
		}
		for _, v := range values {
			link, ln, e := b.resolve(ctx, v, cc.Time)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			c.Steps = append(c.Steps, link)
			if e == nil {
				rep.Problems = append(rep.Problems, Problem{Commit: cc.Commit, Message: link.Error})
				continue
			}
			if link.Named != "" && !slices.Contains(namedAs[ln], link.Named) {
				namedAs[ln] = append(namedAs[ln], link.Named)
			}
			if !slices.Contains(order, ln) {
				order = append(order, ln)
			}
			if !slices.Contains(held[e.Commit], cc.Commit) {
				held[e.Commit] = append(held[e.Commit], cc.Commit)
			}
		}
		c.NoStep = !slices.ContainsFunc(c.Steps, StepLink.Resolved)
		rep.Commits = append(rep.Commits, c)
	}
	for _, ln := range order {
		t, err := b.threadOf(ctx, ln, held, namedAs[ln])
		if err != nil {
			return nil, err
		}
		rep.Threads = append(rep.Threads, t)
	}
	rep.Problems = append(rep.Problems, orderProblems(rep)...)
	if opts.Remote != "" {
		probs, err := b.checkRemote(ctx, opts.Remote, order, held)
		if err != nil {
			return nil, err
		}
		rep.Remote = opts.Remote
		rep.Problems = append(rep.Problems, probs...)
	}
	rep.summarize()
	return rep, nil
}

func (r *Report) summarize() {
	s := Summary{Commits: len(r.Commits), Threads: len(r.Threads), Problems: len(r.Problems)}
	for _, c := range r.Commits {
		if c.NoStep {
			s.WithoutStep++
		} else {
			s.WithStep++
		}
	}
	for _, t := range r.Threads {
		for _, st := range t.Path {
			if st.Committed {
				s.Steps++
			}
		}
	}
	r.Summary = s
}

// resolve follows one trailer value of a code commit made at t. It returns
// the link, and the line and entry of the step when it resolves.
func (b *builder) resolve(ctx context.Context, v string, t time.Time) (StepLink, *line, *chain.Entry) {
	link := StepLink{Trailer: v}
	fail := func(err error) (StepLink, *line, *chain.Entry) {
		link.Error = err.Error()
		return link, nil, nil
	}
	ref, err := parseTrailer(v)
	if err != nil {
		return fail(err)
	}
	var (
		ln *line
		e  *chain.Entry
	)
	if ref.Alias != "" {
		ln, e, err = b.byAlias(ctx, ref.Alias)
	} else {
		ln, e, link.Note, err = b.byHead(ctx, ref, t, &link.Named)
	}
	if err != nil {
		return fail(fmt.Errorf("%s trailer %q: %w", chain.StepTrailer, v, err))
	}
	link.Thread, link.Step, link.Alias = string(ln.id), ln.index[e.Commit], string(e.Node.Alias)
	if e.Step != nil {
		link.Role = e.Step.Role
	}
	return link, ln, e
}

// byAlias resolves a step alias (or prefix) to its entry and a line holding it.
func (b *builder) byAlias(ctx context.Context, alias string) (*line, *chain.Entry, error) {
	e, err := b.repo.FindStep(ctx, alias)
	if err != nil {
		return nil, nil, err
	}
	if e.Kind != chain.KindStep {
		return nil, nil, fmt.Errorf("%s is a %s commit, not a step", alias, e.Kind)
	}
	ids, err := b.threadsContaining(ctx, e.Commit.String())
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		ln, err := b.line(ctx, string(id))
		if err == nil {
			if _, ok := ln.index[e.Commit]; ok {
				return ln, e, b.familyOf(ctx, ln)
			}
		}
	}
	return nil, nil, fmt.Errorf("step %s is on no thread of this repository", e.Node.Alias)
}

// byHead resolves <thread>@<head>: the step that continued head, on the
// thread or, when a sync forked the thread, on the line that holds it.
// named is set to the trailer's thread when the step is on another line.
func (b *builder) byHead(ctx context.Context, ref trailerRef, t time.Time, named *string) (*line, *chain.Entry, string, error) {
	ln, err := b.line(ctx, ref.Thread)
	if err != nil {
		return nil, nil, "", err
	}
	if err := b.familyOf(ctx, ln); err != nil {
		return nil, nil, "", err
	}
	type candidate struct {
		e     *chain.Entry
		lines []*line
	}
	var cands []*candidate
	for _, fl := range ln.family.lines {
		for k, e := range fl.entries {
			if e.Kind != chain.KindStep || !strings.HasPrefix(fl.parents[k], ref.Head) {
				continue
			}
			i := slices.IndexFunc(cands, func(c *candidate) bool { return c.e.Commit == e.Commit })
			if i < 0 {
				cands = append(cands, &candidate{e: e})
				i = len(cands) - 1
			}
			cands[i].lines = append(cands[i].lines, fl)
		}
	}
	if len(cands) == 0 {
		return nil, nil, "", b.noStep(ctx, ln, ref.Head)
	}
	pick, note := cands[0], ""
	if len(cands) > 1 {
		var fit []*candidate
		for _, c := range cands {
			if inWindow(c.e, t) {
				fit = append(fit, c)
			}
		}
		if len(fit) == 1 {
			pick = fit[0]
		} else {
			if len(fit) > 1 {
				cands = fit
			}
			for _, c := range cands {
				if slices.Contains(c.lines, ln) {
					pick = c
					break
				}
			}
			note = fmt.Sprintf("ambiguous: %d steps continue %s and the commit's time does not tell them apart; showing the one on %s", len(cands), ref.Head, pick.lines[0].id)
		}
	}
	holder := pick.lines[0]
	if slices.Contains(pick.lines, ln) {
		holder = ln
	} else if note == "" {
		*named = string(ln.id)
		note = fmt.Sprintf("the trailer names thread %s; this step is on %s, the line a sync kept it on", ln.id, holder.id)
	}
	return holder, pick.e, note, nil
}

// inWindow reports whether a code commit made at t falls within the
// step's run.
func inWindow(e *chain.Entry, t time.Time) bool {
	if e.Step == nil || e.Step.StartedAtMs == 0 {
		return false
	}
	from := time.UnixMilli(e.Step.StartedAtMs).Add(-windowSlack)
	to := time.UnixMilli(e.Step.CompletedAtMs).Add(windowSlack)
	return !t.Before(from) && !t.After(to)
}

// noStep explains why no step continues head on ln's family.
func (b *builder) noStep(ctx context.Context, ln *line, head string) error {
	for _, fl := range ln.family.lines {
		atts, err := b.repo.Attempts(ctx, fl.thread, false)
		if err != nil {
			continue
		}
		for _, a := range atts {
			if strings.HasPrefix(a.Head.String(), head) {
				return fmt.Errorf("the step failed: thread %s recorded a failed attempt of %s on %s (%s): %w",
					fl.id, a.Node.Role, shortID(a.Head.String()), text.Clip(text.OneLine(a.Node.Error), 100), chain.ErrUnknownStep)
			}
		}
	}
	for _, fl := range ln.family.lines {
		for _, e := range fl.entries {
			if strings.HasPrefix(e.Commit.String(), head) {
				return fmt.Errorf("thread %s has no step on top of %s yet (the step is still running, failed without a record, or is in a clone that has not pushed it or a fetch this repository has not made): %w",
					ln.id, shortID(e.Commit.String()), chain.ErrUnknownStep)
			}
		}
	}
	return fmt.Errorf("thread %s has no commit %s (the step was recorded on a line this repository has not fetched): %w", ln.id, head, chain.ErrUnknownStep)
}

// prefetch loads, before any trailer is resolved, every thread the
// trailers name and every fork of those threads: the forks come from one
// git for-each-ref --contains over all their start commits, however many
// threads the range touches.
func (b *builder) prefetch(ctx context.Context, commits []codeCommit) error {
	var starts []string
	seen := map[string]bool{}
	for _, cc := range commits {
		for _, v := range cc.Values {
			ref, err := parseTrailer(v)
			if err != nil || ref.Thread == "" || seen[ref.Thread] {
				continue
			}
			seen[ref.Thread] = true
			ln, err := b.line(ctx, ref.Thread)
			if err != nil || ln.family != nil {
				continue
			}
			start := ln.entries[0].Commit
			if _, ok := b.families[start]; !ok {
				b.families[start] = &family{start: start}
				starts = append(starts, start.String())
			}
		}
	}
	if len(starts) == 0 {
		return nil
	}
	ids, err := b.threadsContaining(ctx, starts...)
	if err != nil {
		return err
	}
	for _, id := range ids {
		_, _ = b.loadLine(ctx, id) // a damaged fork does not stop the review
	}
	for _, id := range slices.Sorted(maps.Keys(b.lines)) {
		ln := b.lines[id]
		if ln.family == nil {
			if f, ok := b.families[ln.entries[0].Commit]; ok {
				f.add(ln)
			}
		}
	}
	return nil
}

// add puts ln into the family, keeping the lines ordered by id.
func (f *family) add(ln *line) {
	ln.family = f
	f.lines = append(f.lines, ln)
	slices.SortFunc(f.lines, func(a, b *line) int { return strings.Compare(string(a.id), string(b.id)) })
}

// line returns a thread by id or prefix, with its chain, and its family
// once prefetch or familyOf has found it.
func (b *builder) line(ctx context.Context, idOrPrefix string) (*line, error) {
	if err, ok := b.missing[idOrPrefix]; ok {
		return nil, err
	}
	if ln, ok := b.byName[idOrPrefix]; ok {
		return ln, nil
	}
	id, err := b.repo.ResolveThread(ctx, idOrPrefix)
	if err != nil {
		if errors.Is(err, chain.ErrUnknownThread) {
			err = b.missingThread(ctx, idOrPrefix)
		}
		b.missing[idOrPrefix] = err
		return nil, err
	}
	ln, err := b.loadLine(ctx, id)
	if err == nil {
		b.byName[idOrPrefix] = ln
	}
	return ln, err
}

// familyOf makes sure ln's family is known (for lines prefetch did not
// see, such as those found through a step alias).
func (b *builder) familyOf(ctx context.Context, ln *line) error {
	if ln.family != nil {
		return nil
	}
	start := ln.entries[0].Commit
	f, ok := b.families[start]
	if !ok {
		f = &family{start: start}
		b.families[start] = f
		ids, err := b.threadsContaining(ctx, start.String())
		if err != nil {
			return err
		}
		for _, id := range ids {
			_, _ = b.loadLine(ctx, id)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(b.lines)) {
		if other := b.lines[id]; other.family == nil && other.entries[0].Commit == start {
			f.add(other)
		}
	}
	if ln.family == nil { // its ref moved away from start since it was read
		f.add(ln)
	}
	return nil
}

// loadLine reads a thread and its chain.
func (b *builder) loadLine(ctx context.Context, id chain.ThreadID) (*line, error) {
	if ln, ok := b.lines[id]; ok {
		return ln, nil
	}
	t, err := b.repo.Thread(ctx, id)
	if err != nil {
		return nil, err
	}
	entries, err := b.repo.Chain(ctx, t.Head.Commit)
	if err != nil {
		return nil, fmt.Errorf("thread %s: %w", id, err)
	}
	ln := &line{id: id, thread: t, entries: entries, index: make(map[gitobj.Hash]int, len(entries)), parents: make([]string, len(entries))}
	for i, e := range entries {
		ln.index[e.Commit] = i
		ln.parents[i] = e.Parent.String()
	}
	b.lines[id] = ln
	return ln, nil
}

// threadsContaining lists the threads whose head has any of commits in its
// history, with one git for-each-ref.
func (b *builder) threadsContaining(ctx context.Context, commits ...string) ([]chain.ThreadID, error) {
	args := []string{"for-each-ref", "--format=%(refname)"}
	for _, c := range commits {
		args = append(args, "--contains", c)
	}
	out, err := b.repo.Git.Output(ctx, append(args, chain.ThreadsPrefix)...)
	if err != nil {
		return nil, fmt.Errorf("list the threads holding %s: %w", shortID(commits[0]), err)
	}
	var ids []chain.ThreadID
	for name := range strings.FieldsSeq(out) {
		if id, err := chain.ParseThreadID(strings.TrimPrefix(name, chain.ThreadsPrefix)); err == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// missingThread explains a thread id that names no local thread, and which
// remote to fetch when a remote-tracking ref shows where it is.
func (b *builder) missingThread(ctx context.Context, id string) error {
	for remoteID := range b.remoteHeads {
		if strings.HasPrefix(string(remoteID), id) {
			return fmt.Errorf("thread %s is not here but remote %s has it: run git uwf fetch %s: %w", id, b.remote, b.remote, chain.ErrUnknownThread)
		}
	}
	if b.tracking == nil {
		b.tracking = b.trackingThreads(ctx)
	}
	for _, tr := range b.tracking {
		if strings.HasPrefix(tr.id, id) {
			return fmt.Errorf("thread %s is not here but remote %s has it: run git uwf fetch %s: %w", id, tr.remote, tr.remote, chain.ErrUnknownThread)
		}
	}
	if b.remotes == nil {
		out, _ := b.repo.Git.Output(ctx, "remote")
		b.remotes = strings.Fields(out)
	}
	names := b.remotes
	switch len(names) {
	case 0:
		return fmt.Errorf("thread %s is not in this repository (and no remote is configured to fetch it from): %w", id, chain.ErrUnknownThread)
	case 1:
		return fmt.Errorf("thread %s is not in this repository: if it was pushed, run git uwf fetch %s: %w", id, names[0], chain.ErrUnknownThread)
	}
	return fmt.Errorf("thread %s is not in this repository: fetch it from the remote that has it (git uwf fetch <remote>; remotes: %s): %w", id, strings.Join(names, ", "), chain.ErrUnknownThread)
}
