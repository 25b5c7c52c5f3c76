package chain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/objects"
)

// ErrRunning means a thread is being stepped by some process, so it (or
// its workflow) may not be removed now.
var ErrRunning = errors.New("thread running")

// Rollback is the outcome of RollbackWorkflow.
type Rollback struct {
	Name string `json:"name"`
	// From is the version that was current, To the one that is now.
	From objects.Alias `json:"from"`
	To   objects.Alias `json:"to"`
	// Commit is the new version commit on refs/uwf/workflows/<name>.
	Commit string `json:"commit"`
}

// RollbackWorkflow makes an earlier version of a registered workflow the
// current one again by adding a version commit on top whose tree is that
// version's tree: history is never rewritten, and the rollback itself is a
// version like any other (sync carries it, history lists it). to is an
// alias (or an unambiguous prefix of at least 4 characters) of one of the
// workflow's versions; empty means the version before the current one.
func (r *Repo) RollbackWorkflow(ctx context.Context, name, to string) (*Rollback, error) {
	versions, err := r.WorkflowHistory(ctx, name)
	if err != nil {
		return nil, err
	}
	cur := versions[0]
	var target *RegisteredWorkflow
	switch {
	case to == "":
		// The previous version: the newest older commit pinning another
		// version (a re-registration of the same file is not a version).
		for i := 1; i < len(versions); i++ {
			if versions[i].Hash != cur.Hash {
				target = &versions[i]
				break
			}
		}
		if target == nil {
			return nil, fmt.Errorf("workflow %q has no earlier version to roll back to (see git uwf workflow history %s)", name, name)
		}
	default:
		want := strings.ToUpper(to)
		if len(want) < 4 || len(want) > objects.AliasLen {
			return nil, fmt.Errorf("%q is not a version of workflow %q: an alias has 4 to %d characters (see git uwf workflow history %s)", to, name, objects.AliasLen, name)
		}
		matches := map[objects.Alias]int{}
		for i, v := range versions {
			if strings.HasPrefix(string(v.Hash), want) {
				if _, seen := matches[v.Hash]; !seen {
					matches[v.Hash] = i
				}
			}
		}
		switch len(matches) {
		case 0:
			return nil, fmt.Errorf("%q is not a version of workflow %q (see git uwf workflow history %s)", to, name, name)
		case 1:
			for _, i := range matches {
				target = &versions[i]
			}
		default:
			return nil, fmt.Errorf("%q matches %d versions of workflow %q: give more characters", to, len(matches), name)
		}
		if target.Hash == cur.Hash {
			return nil, fmt.Errorf("workflow %q is already at version %s", name, cur.Hash)
		}
	}
	tip := gitobj.NewHash(cur.Commit)
	old, err := gitobj.GetCommit(r.Store.Storer(), gitobj.NewHash(target.Commit))
	if err != nil {
		return nil, fmt.Errorf("read version %s of workflow %q: %w", target.Hash, name, err)
	}
	info, err := r.loadWorkflowTree(ctx, old.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("version %s of workflow %q: %w", target.Hash, name, err)
	}
	msg := message(fmt.Sprintf("workflow %s: roll back to %s", name, target.Hash), info.Workflow.Description,
		Trailer{"Uwf-Workflow", name}, Trailer{nodeTrailer, string(target.Hash)}, Trailer{"Uwf-Rollback-From", string(cur.Hash)})
	commit, err := r.writeCommit(ctx, old.TreeHash, []gitobj.Hash{tip}, msg)
	if err != nil {
		return nil, err
	}
	refName := WorkflowsPrefix + name
	if err := r.casRef(ctx, refName, tip, commit, "uwf: roll back workflow "+name); err != nil {
		return nil, fmt.Errorf("roll back workflow %q: %w", name, err)
	}
	return &Rollback{Name: name, From: cur.Hash, To: target.Hash, Commit: commit.String()}, nil
}

// RemovedWorkflow is the outcome of RemoveWorkflow.
type RemovedWorkflow struct {
	Name string `json:"name"`
	Ref  string `json:"ref"`
	// Commit and Hash are the tip the ref had, and its version.
	Commit string        `json:"commit"`
	Hash   objects.Alias `json:"hash"`
	// Running lists the running threads of the workflow that force let
	// through.
	Running []ThreadID `json:"running"`
}

// RemoveWorkflow deletes refs/uwf/workflows/<name> (compare-and-swap from
// the value it read). Threads pin the version they started with in their
// own commits, so they keep working. It refuses while a thread of that
// workflow is being stepped, unless force.
func (r *Repo) RemoveWorkflow(ctx context.Context, name string, force bool) (*RemovedWorkflow, error) {
	versions, err := r.WorkflowHistory(ctx, name)
	if err != nil {
		return nil, err
	}
	cur := versions[0]
	running, err := r.runningThreadsOf(ctx, name)
	if err != nil {
		return nil, err
	}
	if len(running) > 0 && !force {
		return nil, fmt.Errorf("workflow %q has %d running thread(s) (%s): %w; wait for them or pass --force",
			name, len(running), running[0], ErrRunning)
	}
	refName := WorkflowsPrefix + name
	if err := r.casRef(ctx, refName, gitobj.NewHash(cur.Commit), gitobj.ZeroHash, "uwf: remove workflow "+name); err != nil {
		return nil, fmt.Errorf("remove workflow %q: %w", name, err)
	}
	if running == nil {
		running = []ThreadID{}
	}
	return &RemovedWorkflow{Name: name, Ref: refName, Commit: cur.Commit, Hash: cur.Hash, Running: running}, nil
}

// runningThreadsOf lists the threads of workflow name that some process
// is stepping now. Only running threads are read.
func (r *Repo) runningThreadsOf(ctx context.Context, name string) ([]ThreadID, error) {
	ids, _, err := r.ThreadIDs(ctx)
	if err != nil {
		return nil, err
	}
	var out []ThreadID
	for _, id := range ids {
		if !r.threadRunning(id) {
			continue
		}
		t, err := r.Thread(ctx, id)
		if err != nil {
			continue // unreadable: it cannot be a thread of this workflow
		}
		if t.Workflow.Name == name {
			out = append(out, id)
		}
	}
	return out, nil
}

// RemovedThread is one thread RemoveThreads deleted: the refs and the
// values they had.
type RemovedThread struct {
	Thread ThreadID          `json:"thread"`
	Refs   map[string]string `json:"refs"`
}

// RemoveThreads deletes the threads' refs (refs/uwf/threads/<id> and their
// attempts log refs/uwf/attempts/<id>) in one transaction, each by
// compare-and-swap from the value read under the thread's lock. A thread
// that is being stepped is refused (ErrBusy) and nothing is deleted.
// Commits stay in the object database until git gc prunes them.
//
// before, when set, runs while every lock is held and before the local
// refs are deleted (e.g. to delete them on a remote first); its error
// stops the removal.
func (r *Repo) RemoveThreads(ctx context.Context, ids []ThreadID, before func([]RemovedThread) error) ([]RemovedThread, error) {
	var updates []gitrepo.RefUpdate
	out := make([]RemovedThread, 0, len(ids))
	seen := map[ThreadID]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		unlock, err := r.LockThread(id)
		if err != nil {
			if errors.Is(err, ErrBusy) {
				return nil, fmt.Errorf("thread %s is running, not removed (%w); nothing was removed", id, err)
			}
			return nil, err
		}
		defer unlock()
		rt := RemovedThread{Thread: id, Refs: map[string]string{}}
		for _, name := range []string{ThreadsPrefix + string(id), AttemptsPrefix + string(id)} {
			oid, err := r.resolveRef(name)
			if err != nil {
				return nil, err
			}
			if oid.IsZero() {
				continue
			}
			rt.Refs[name] = oid.String()
			updates = append(updates, gitrepo.RefUpdate{Ref: name, New: gitrepo.ZeroOID, Old: oid.String()})
		}
		if _, ok := rt.Refs[ThreadsPrefix+string(id)]; !ok {
			return nil, fmt.Errorf("thread %s: %w", id, ErrUnknownThread)
		}
		out = append(out, rt)
	}
	if before != nil {
		if err := before(out); err != nil {
			return nil, err
		}
	}
	if err := r.Git.UpdateRefs(ctx, "uwf: remove threads", updates...); err != nil {
		return nil, fmt.Errorf("remove threads: %w", err)
	}
	return out, nil
}
