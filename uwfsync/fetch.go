package uwfsync

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// maxExplicitRefs is how many refs fetch and push name one by one on the
// command line; beyond it they use the refs/uwf/* wildcard, which costs a
// per-ref pass over every git-uwf ref on both sides but keeps the command
// line short.
const maxExplicitRefs = 256

// refState is what one run knows about the git-uwf refs of this clone and
// of one remote. Maps are keyed by local ref name (refs/uwf/...).
type refState struct {
	// local holds refs/uwf/*; reconcile keeps it current as refs move.
	local map[string]string
	// tracking holds refs/remotes/<remote>/uwf/*.
	tracking map[string]string
	// trackingOrder lists the keys of tracking sorted by name.
	trackingOrder []string
	// moved reports that this run moved a remote-tracking ref.
	moved bool
	// written counts the refs this run wrote (remote-tracking refs, and
	// local refs reconcile moved) since they were last packed.
	written int
	// packing, when set, is closed when the git pack-refs startPacking
	// started has ended.
	packing chan struct{}
}

// listState reads the local and the remote-tracking git-uwf refs, the two
// listings running side by side.
func listState(ctx context.Context, repo *chain.Repo, remote string) (*refState, error) {
	var (
		wg              sync.WaitGroup
		local, tracking []gitrepo.RefEntry
		lerr, terr      error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		local, lerr = repo.ListRefs(ctx, chain.RefPrefix)
	}()
	tracking, terr = repo.ListRefs(ctx, trackingPrefix(remote))
	wg.Wait()
	if lerr != nil {
		return nil, fmt.Errorf("list local git-uwf refs: %w", lerr)
	}
	if terr != nil {
		return nil, fmt.Errorf("list remote-tracking refs of %s: %w", remote, terr)
	}
	st := &refState{local: make(map[string]string, len(local))}
	for _, r := range local {
		st.local[r.Name] = r.OID
	}
	st.setTracking(remote, tracking)
	return st, nil
}

// setTracking replaces the remote-tracking values with refs (as listed by
// for-each-ref).
func (st *refState) setTracking(remote string, refs []gitrepo.RefEntry) {
	st.tracking = make(map[string]string, len(refs))
	st.trackingOrder = make([]string, 0, len(refs))
	for _, r := range refs {
		name := chain.RefPrefix + strings.TrimPrefix(r.Name, trackingPrefix(remote))
		st.tracking[name] = r.OID
		st.trackingOrder = append(st.trackingOrder, name)
	}
	if !slices.IsSorted(st.trackingOrder) {
		slices.Sort(st.trackingOrder)
	}
}

// fetchState brings refs/remotes/<remote>/uwf/* up to date with the remote's
// refs/uwf/* and returns the resulting state.
//
// It first asks the remote for its refs (git ls-remote), while listing the
// local refs beside it, and compares: when no git-uwf ref moved on the
// remote, nothing is fetched at all. Otherwise only the refs that moved are
// fetched (still "+" into the mirror namespace only), and the remote-tracking
// refs of refs the remote no longer has are deleted by compare-and-swap, as
// --prune would. Many moved refs fall back to one git fetch --prune of the
// whole namespace. A ref that moves again on the remote between the listing
// and the fetch is fetched at its newer value or picked up by the next run;
// either way nothing local is overwritten, since local refs only move
// through reconcile and the push is never forced.
//
// When this clone has no remote-tracking git-uwf ref of remote yet (its
// first fetch), every ref the remote has is new: the listing could only
// confirm that, so the whole namespace is fetched at once, without it.
func fetchState(ctx context.Context, repo *chain.Repo, remote string) (*refState, error) {
	st, err := listState(ctx, repo, remote)
	if err != nil {
		return nil, err
	}
	if len(st.tracking) == 0 {
		if err := fetchAll(ctx, repo, remote, st); err != nil {
			return nil, err
		}
		st.moved = len(st.tracking) > 0
		st.written += len(st.tracking) // all new: each one was written
		return st, nil
	}
	theirs, err := lsRemote(ctx, repo.Git, remote)
	if err != nil {
		return nil, err
	}
	return st, applyRemote(ctx, repo, remote, st, theirs)
}

// remoteListing is a git ls-remote running in the background.
type remoteListing struct {
	done chan struct{}
	refs map[string]string
	err  error
}

// startLsRemote starts listing the remote's refs/uwf/*.
func startLsRemote(ctx context.Context, g *gitrepo.Runner, remote string) *remoteListing {
	l := &remoteListing{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.refs, l.err = lsRemote(ctx, g, remote)
	}()
	return l
}

// wait returns the listing once it is done.
func (l *remoteListing) wait() (map[string]string, error) {
	<-l.done
	return l.refs, l.err
}

// applyRemote brings the remote-tracking refs of st up to date with theirs,
// the remote's refs/uwf/* as listed: it fetches what moved and prunes what
// is gone, as described at fetchState.
func applyRemote(ctx context.Context, repo *chain.Repo, remote string, st *refState, theirs map[string]string) error {
	var changed, gone []string
	for name, oid := range theirs {
		if st.tracking[name] != oid {
			changed = append(changed, name)
		}
	}
	for _, name := range st.trackingOrder {
		if _, ok := theirs[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(changed) == 0 && len(gone) == 0 {
		return nil
	}
	st.moved = true
	st.written += len(changed) + len(gone)
	if len(changed) > maxExplicitRefs {
		return fetchAll(ctx, repo, remote, st)
	}
	if len(changed) > 0 {
		args := append(fetchArgs(), remote)
		for _, name := range changed {
			args = append(args, "+"+name+":"+trackingRef(remote, name))
		}
		if _, err := trackingGit(repo).Run(ctx, nil, args...); err != nil {
			// A ref deleted on the remote since the listing makes the
			// explicit fetch fail; the wildcard fetch copes with that.
			return fetchAll(ctx, repo, remote, st)
		}
	}
	var prune []gitrepo.RefUpdate
	for _, name := range gone {
		prune = append(prune, gitrepo.RefUpdate{Ref: trackingRef(remote, name), New: gitrepo.ZeroOID, Old: st.tracking[name]})
	}
	if err := trackingGit(repo).UpdateRefs(ctx, "uwf: pruned, gone from "+remote, prune...); err != nil {
		return fmt.Errorf("prune remote-tracking refs of %s: %w", remote, err)
	}
	for _, name := range gone {
		delete(st.tracking, name)
	}
	if len(changed) > 0 {
		patterns := make([]string, len(changed))
		for i, name := range changed {
			patterns[i] = trackingRef(remote, name)
		}
		now, err := readRefs(ctx, repo, patterns)
		if err != nil {
			return fmt.Errorf("read remote-tracking refs of %s: %w", remote, err)
		}
		for i, name := range changed {
			if oid, ok := now[patterns[i]]; ok {
				st.tracking[name] = oid
			} else {
				delete(st.tracking, name)
			}
		}
	}
	st.trackingOrder = slices.Sorted(maps.Keys(st.tracking))
	return nil
}

// fetchAll runs git fetch --prune of the whole refs/uwf/* namespace and
// re-reads the remote-tracking refs into st.
func fetchAll(ctx context.Context, repo *chain.Repo, remote string, st *refState) error {
	args := append(fetchArgs(), "--prune", remote, fetchRefspec(remote))
	if _, err := trackingGit(repo).Run(ctx, nil, args...); err != nil {
		return fmt.Errorf("fetch git-uwf refs from %s: %w", remote, err)
	}
	refs, err := repo.ListRefs(ctx, trackingPrefix(remote))
	if err != nil {
		return fmt.Errorf("list remote-tracking refs of %s: %w", remote, err)
	}
	st.setTracking(remote, refs)
	return nil
}

// fetchArgs starts the git fetch of git-uwf refs into the remote-tracking
// namespace: no tags and no FETCH_HEAD (nothing reads them).
func fetchArgs() []string {
	return []string{"fetch", "--no-tags", "--no-write-fetch-head"}
}

// trackingGit is the git runner for the commands of a run that write
// remote-tracking refs only (fetch and prune into refs/remotes/<r>/uwf/*,
// push, which may record what it sent there, and recordPushed): it passes
// core.logAllRefUpdates=false, so git creates no reflog for those refs, as
// git does for refs outside refs/heads/, refs/remotes/ and refs/notes/ by
// default. Nothing in git-uwf reads them: a remote-tracking ref mirrors
// the remote, and what moved the local refs/uwf/* is their history. A
// reflog that exists already (e.g. made by a plain git fetch) is still
// appended to. Creating one reflog file per ref is a large part of what
// git spends writing the refs of a fetch or push of 1,000 new threads.
func trackingGit(repo *chain.Repo) *gitrepo.Runner {
	return repo.Git.WithConfig("core.logAllRefUpdates=false")
}

// lsRemote lists the remote's refs/uwf/* (git ls-remote --refs), keyed by
// ref name.
func lsRemote(ctx context.Context, g *gitrepo.Runner, remote string) (map[string]string, error) {
	out, err := g.Run(ctx, nil, "ls-remote", "--refs", remote, chain.RefPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("list git-uwf refs of %s: %w", remote, err)
	}
	refs := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		oid, name, ok := strings.Cut(line, "\t")
		if ok && strings.HasPrefix(name, chain.RefPrefix) {
			refs[name] = oid
		}
	}
	return refs, nil
}

// trackingRef is the remote-tracking ref that mirrors the remote's name.
func trackingRef(remote, name string) string {
	return trackingPrefix(remote) + strings.TrimPrefix(name, chain.RefPrefix)
}

// readRefs returns the current values of the named refs (full names); a
// missing ref is absent from the map. It reads them from the ref files
// (gitrepo.RefFiles) when those can answer for every name, else asks git
// cat-file --batch-check, which reads just those refs, where for-each-ref
// would list every ref of their directory.
func readRefs(ctx context.Context, repo *chain.Repo, names []string) (map[string]string, error) {
	refs, ok, err := repo.RefFiles().Refs(names)
	if err != nil || !ok {
		return readRefsWithGit(ctx, repo.Git, names)
	}
	return refs, nil
}

// readRefsWithGit is readRefs through git cat-file --batch-check.
func readRefsWithGit(ctx context.Context, g *gitrepo.Runner, names []string) (map[string]string, error) {
	if len(names) == 0 {
		// git answers no names with no output, which splits into one
		// empty line.
		return map[string]string{}, nil
	}
	var in strings.Builder
	for _, name := range names {
		if strings.ContainsAny(name, " \n\x00") || !strings.HasPrefix(name, "refs/") {
			return nil, fmt.Errorf("read ref: invalid ref name %q", name)
		}
		in.WriteString(name + "\n")
	}
	out, err := g.Run(ctx, strings.NewReader(in.String()), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, fmt.Errorf("read refs: %w", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		return nil, fmt.Errorf("read refs: git answered %d lines for %d refs", len(lines), len(names))
	}
	refs := make(map[string]string, len(names))
	for i, line := range lines {
		if !strings.HasSuffix(line, " missing") {
			refs[names[i]] = line
		}
	}
	return refs, nil
}

// packRefs packs the refs after a run that wrote many refs (a first fetch
// or push of many threads): git writes each as a loose file, and every later
// listing of them (each command's adopt, every fetch and push, the alias
// index's refresh) would read thousands of files until the next git gc. It
// runs git pack-refs --all, as git gc does; ref values do not change, and a
// failure only leaves the refs loose. The count starts again afterwards, so
// a later call in the same run packs only when many more refs were written.
//
// The packing ends before the command does: git pack-refs holds
// packed-refs.lock while it works, and every ref deletion (ours, such as
// the next fetch's prune, or the user's) waits one second for that lock
// and then fails, which is why git's own gc --auto packs refs before it
// goes to the background.
func packRefs(ctx context.Context, repo *chain.Repo, st *refState) {
	startPacking(ctx, repo, st)
	waitPacking(st)
}

// startPacking is packRefs without the wait: the packing runs beside the
// caller's next work, which must delete no ref until waitPacking returns
// (in git's files backend, creating and moving refs does not need the
// lock). A fetch of many threads packs their remote-tracking refs while it
// checks the threads and creates the local refs, and those local refs
// while it refreshes the alias index. A packing this run started earlier
// is waited for first, since its listing of loose refs may predate refs
// written since. A run already cancelled starts none; one cancelled while
// a packing is under way lets it finish, so the refs end packed (an
// interrupt from the terminal still reaches git, which then removes its
// lock). In a reftable, where git pack-refs compacts the tables and holds
// the lock every ref write takes, it packs before returning.
func startPacking(ctx context.Context, repo *chain.Repo, st *refState) {
	if st.written <= maxExplicitRefs || ctx.Err() != nil {
		return
	}
	waitPacking(st)
	st.written = 0
	ctx = context.WithoutCancel(ctx)
	pack := func() { _, _ = repo.Git.Run(ctx, nil, "pack-refs", "--all") }
	if !repo.RefFiles().FilesBackend() {
		pack()
		return
	}
	done := make(chan struct{})
	st.packing = done
	go func() {
		defer close(done)
		pack()
	}()
}

// waitPacking waits for the packing startPacking started, if any.
func waitPacking(st *refState) {
	if st.packing != nil {
		<-st.packing
		st.packing = nil
	}
}
