package chain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/objects"
)

// Repo is a git repository opened for git-uwf: the git CLI for refs and
// network, the object store for nodes.
type Repo struct {
	Info  *gitrepo.Repo
	Git   *gitrepo.Runner
	Store *objects.Store

	now func() time.Time

	mu      sync.Mutex
	schemas map[string]objects.Ref // built-in schema refs by title
	// identMu guards ident; it is held while git resolves the identity, so
	// it is not mu, which lock and cache lookups must never wait on.
	identMu   sync.Mutex
	ident     *identity
	workflows map[objects.Alias]*WorkflowInfo
	pinned    map[gitobj.Hash]*WorkflowInfo // by the workflow/ tree a commit pins
	held      map[ThreadID]bool             // thread locks this process holds
	lockFiles map[ThreadID]*os.File         // their open lock files (unix)

	entries entryCache // decoded thread commits, by start node (cache_entries.go)
	refs    *refFiles  // single ref lookups in the ref files (cache_refs.go)
}

// GitVersionFile is the file, in the common git dir's uwf directory, that
// keeps the answer of `git version` for the git executable last used
// (gitrepo.Runner.Version), so that a process reading objects through
// `git cat-file` need not start git once more to choose cat-file's mode.
const GitVersionFile = "git-version"

// Options configure Open.
type Options struct {
	// Env is added to the environment of git subprocesses.
	Env []string
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// ErrUnsupportedRepo reports a repository format git-uwf cannot write to.
var ErrUnsupportedRepo = errors.New("unsupported repository")

// Open discovers the repository containing dir (honouring GIT_DIR, linked
// worktrees and bare repositories) and opens its object store.
func Open(ctx context.Context, dir string, opts Options) (*Repo, error) {
	info, err := gitrepo.Discover(ctx, dir, opts.Env)
	if err != nil {
		return nil, err
	}
	if info.ObjectFormat != "sha1" {
		return nil, fmt.Errorf("%s uses %s object ids: %w (git-uwf supports sha1 repositories only)",
			info.CommonDir, info.ObjectFormat, ErrUnsupportedRepo)
	}
	run, err := info.Runner(dir)
	if err != nil {
		return nil, err
	}
	run.Env = append(run.Env, opts.Env...)
	run.VersionFile = filepath.Join(info.CommonDir, "uwf", GitVersionFile)
	store, err := objects.OpenDir(info.CommonDir)
	if err != nil {
		return nil, fmt.Errorf("open object store in %s: %w", info.CommonDir, err)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	refs := newRefFiles(info.CommonDir)
	store.UseRefFiles(refs.files)
	return &Repo{Info: info, Git: run, Store: store, now: now,
		schemas: map[string]objects.Ref{}, workflows: map[objects.Alias]*WorkflowInfo{}, pinned: map[gitobj.Hash]*WorkflowInfo{}, held: map[ThreadID]bool{},
		refs: refs}, nil
}

// Now is the repository's clock (injectable for tests).
func (r *Repo) Now() time.Time { return r.now() }

// UwfDir is the local, derived-data directory under the common git dir.
func (r *Repo) UwfDir() string { return r.Info.CommonDir + "/uwf" }

// schema returns the ref of a built-in schema, writing it on first use.
func (r *Repo) schema(title string) (objects.Ref, error) {
	r.mu.Lock()
	ref, ok := r.schemas[title]
	r.mu.Unlock()
	if ok {
		return ref, nil
	}
	doc, err := builtinSchema(title)
	if err != nil {
		return objects.Ref{}, err
	}
	ref, err = r.Store.PutSchema(doc)
	if err != nil {
		return objects.Ref{}, fmt.Errorf("register schema %s: %w", title, err)
	}
	r.mu.Lock()
	r.schemas[title] = ref
	r.mu.Unlock()
	return ref, nil
}

// builtinSchema returns the document of the built-in schema called title.
func builtinSchema(title string) (map[string]any, error) {
	switch title {
	case "uwf.StartNode":
		return startNodeSchema(), nil
	case "uwf.StepNode":
		return stepNodeSchema(), nil
	case "uwf.CancelNode":
		return cancelNodeSchema(), nil
	case "uwf.Workflow":
		return workflowNodeSchema(), nil
	case "uwf.FailedAttempt":
		return attemptNodeSchema(), nil
	case "uwf.SuspendOutput":
		return suspendOutputSchema(), nil
	}
	return nil, fmt.Errorf("unknown built-in schema %q", title)
}

// Schema returns the alias of a built-in node schema ("uwf.StepNode", …).
func (r *Repo) Schema(title string) (objects.Alias, error) {
	ref, err := r.schema(title)
	return ref.Alias, err
}

type identity struct {
	name, email string
	when        time.Time // zero unless pinned by GIT_*_DATE
}

// signature returns the committer identity git would use (user.name,
// user.email, GIT_COMMITTER_* variables), with a neutral fallback.
func (r *Repo) signature(ctx context.Context) identity {
	r.identMu.Lock()
	defer r.identMu.Unlock()
	if r.ident == nil {
		id := identity{name: "git-uwf", email: "git-uwf@localhost"}
		if out, err := r.Git.Output(ctx, "var", "GIT_COMMITTER_IDENT"); err == nil {
			if parsed, ok := parseIdent(out); ok {
				id = parsed
				if os.Getenv("GIT_COMMITTER_DATE") == "" {
					id.when = time.Time{}
				}
			}
		}
		r.ident = &id
	}
	return *r.ident
}

// WarmIdentity resolves the committer identity in the background (one git
// process), so that a commit made later, for instance after an agent ran,
// does not wait for it.
func (r *Repo) WarmIdentity(ctx context.Context) {
	go r.signature(context.WithoutCancel(ctx))
}

// parseIdent parses "Name <email> 1700000000 +0100".
func parseIdent(s string) (identity, bool) {
	lt := strings.LastIndexByte(s, '<')
	gt := strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return identity{}, false
	}
	id := identity{name: strings.TrimSpace(s[:lt]), email: s[lt+1 : gt]}
	fields := strings.Fields(s[gt+1:])
	if len(fields) == 2 {
		if sec, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			loc := time.UTC
			if tz, err := time.Parse("-0700", fields[1]); err == nil {
				loc = tz.Location()
			}
			id.when = time.Unix(sec, 0).In(loc)
		}
	}
	return id, true
}

func (r *Repo) commitTime(id identity) time.Time {
	if !id.when.IsZero() {
		return id.when
	}
	return r.now()
}

// ResolveRef reads a ref's current value; zero hash when absent.
func (r *Repo) ResolveRef(name string) (gitobj.Hash, error) { return r.resolveRef(name) }

// resolveRef reads a ref's current value; zero hash when absent. The ref
// files are read in-process when they can be (cache_refs.go), and through
// `git for-each-ref` otherwise.
func (r *Repo) resolveRef(name string) (gitobj.Hash, error) {
	if h, found, ok := r.refs.lookup(name); ok {
		if !found {
			return gitobj.ZeroHash, nil
		}
		return h, nil
	}
	out, err := r.Git.Output(context.Background(), "for-each-ref", "--format=%(refname) %(objectname) %(symref)", name)
	if err != nil {
		return gitobj.ZeroHash, fmt.Errorf("read ref %s: %w", name, err)
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != name {
			continue // a ref below name, which the pattern matches too
		}
		if len(f) > 2 {
			return gitobj.ZeroHash, fmt.Errorf("ref %s is symbolic", name)
		}
		if !gitobj.IsHash(f[1]) {
			return gitobj.ZeroHash, fmt.Errorf("read ref %s: not a SHA-1 object id: %q", name, f[1])
		}
		return gitobj.NewHash(f[1]), nil
	}
	return gitobj.ZeroHash, nil
}

// casRef moves name from old to new through git update-ref --stdin.
//
// A git process killed in the middle of a ref update leaves <ref>.lock
// behind, and git then refuses every later update of that ref. While this
// process holds the thread's own lock no other git-uwf process can be
// updating the thread's refs, so a ref lock that is older than
// staleRefLock is a leftover of a crash: it is removed and the update is
// tried once more.
func (r *Repo) casRef(ctx context.Context, name string, oldOID, newOID gitobj.Hash, msg string) error {
	old := gitrepo.ZeroOID
	if !oldOID.IsZero() {
		old = oldOID.String()
	}
	update := gitrepo.RefUpdate{Ref: name, New: newOID.String(), Old: old}
	err := r.Git.UpdateRefs(ctx, msg, update)
	var locked *gitrepo.RefLockedError
	if errors.As(err, &locked) && r.holdsLockFor(name) {
		if fi, serr := os.Stat(locked.LockFile); serr == nil && time.Since(fi.ModTime()) > staleRefLock {
			if rerr := os.Remove(locked.LockFile); rerr == nil {
				return r.Git.UpdateRefs(ctx, msg, update)
			}
		}
	}
	return err
}

// staleRefLock is how old a ref's lock file must be before a process that
// holds the thread lock treats it as a crash leftover.
const staleRefLock = 2 * time.Second

// holdsLockFor reports whether this process holds the thread lock that
// guards the ref (a thread or its attempts ref).
func (r *Repo) holdsLockFor(ref string) bool {
	var id string
	switch {
	case strings.HasPrefix(ref, ThreadsPrefix):
		id = strings.TrimPrefix(ref, ThreadsPrefix)
	case strings.HasPrefix(ref, AttemptsPrefix):
		id = strings.TrimPrefix(ref, AttemptsPrefix)
	default:
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held[ThreadID(id)]
}
