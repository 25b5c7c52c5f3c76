// Package scheduler runs many thread steps on one machine: the
// per-workflow concurrency limits (slot lock files shared by every git-uwf
// process of the repository, with a waiting queue served oldest first),
// `thread step --all` (a pool of step processes over the runnable
// threads), and background steps (a detached step process with a record
// that `thread join` waits on).
//
// Everything that must hold across processes lives in files under
// $GIT_COMMON_DIR/uwf and is guarded by flock, which the kernel releases
// when a holder dies: a killed process never keeps a slot or a place in
// the queue, and never leaves a thread shown as running.
package scheduler
