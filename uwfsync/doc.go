// Package uwfsync shares git-uwf data (refs/uwf/threads, workflows and
// attempts) with other clones through a git remote.
//
// All network I/O goes through the git binary ([gitrepo.Runner]) and every
// local ref moves through a compare-and-swap ([gitrepo.Runner.UpdateRefs]).
//
//   - [Fetch] lists the remote's refs/uwf/* (git ls-remote), fetches only
//     the refs that moved into the remote-tracking namespace
//     refs/remotes/<remote>/uwf/* (nothing when none moved), prunes the
//     ones the remote no longer has, and then [Reconcile]s. A clone with no
//     remote-tracking git-uwf ref of the remote yet fetches the whole
//     namespace without listing it first. The remote-tracking refs get no
//     reflog (see trackingGit).
//   - [Reconcile] compares each remote-tracking ref with its local
//     refs/uwf/... twin and yields one [Result] per ref; one bad ref never
//     aborts the rest. Every ref is decided first and the local refs then
//     move together in one git update-ref --stdin transaction (each with
//     its old value); when a ref moved under the run and git refuses the
//     transaction, that run applies its moves one ref at a time, so the
//     racing ref alone is reported. Nothing is ever dropped: when a thread diverged, the
//     remote line keeps the thread's name and the local line is saved as a
//     fork thread whose id is derived from what diverged ([ForkID]), so a
//     second sync creates no duplicate.
//   - [Push] runs git push --atomic without "+" for the refs that differ
//     from their remote-tracking refs: the remote refuses every
//     non-fast-forward update, so a push can never overwrite someone's steps.
//   - [Sync] is Fetch (with Reconcile) then Push. The refs that already
//     differ are pushed while the remote is listed; if the remote refuses
//     that push, the push after reconcile sends the reconciled refs.
//   - [SetupRemote] adds refspecs so that plain git fetch and git push carry
//     refs/uwf/* too, and records the remote as the default (uwf.remote).
//   - [Adopt] applies what a plain git fetch brought (new refs and
//     fast-forwards only) without any network I/O. [AdoptFetched], which
//     every command runs first, does the same for the remote-tracking refs
//     that moved since they were last reconciled, as remembered in a
//     derived record under $GIT_COMMON_DIR/uwf/cache/: when nothing moved
//     and every remote with git-uwf refs has a record, it starts no git
//     process and copies no ref, it digests the remote-tracking refs as
//     they stream past the ref files.
//
// Nothing is pushed to a remote the user did not name or configure: there is
// no iteration over all remotes.
//
// # Reconcile rules
//
// For a remote-tracking ref R and its local twin L:
//
//	L absent               → new: L is created at R
//	L = R                  → up-to-date
//	R ancestor of L        → local-ahead: nothing (push sends it)
//	L ancestor of R        → fast-forward: L moves to R
//	diverged, thread       → forked: L moves to R, the old L is saved as
//	                         refs/uwf/threads/<ForkID(thread, old L)>
//	diverged, workflow     → forked: L moves to R, the old L is saved as
//	                         refs/uwf/workflows/<name>-local-<8 hex of old L>,
//	                         unless every local version is already on R
//	                         (same file registered on both sides): then it
//	                         is a fast-forward that loses nothing
//	diverged, attempts     → merged: the local-only attempt commits are
//	                         replayed (same tree, message and signatures) on
//	                         top of R, so the attempts log is the union
//
// Remote data is validated before any local ref points at it: thread refs
// must be named by a ULID and their tip must be a well-formed chain (one
// root holding a StartNode, each step continuing the previous one, every
// Uwf-Start trailer naming that root and its branch, every Uwf-Next
// trailer saying what routing its commit gives, a readable pinned
// workflow); workflow refs must be valid names whose tip
// pins a readable workflow; attempts refs must be named by a ULID and hold
// a node. Anything else is reported [KindInvalid] and left alone.
package uwfsync
