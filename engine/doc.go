// Package engine runs the git-uwf step loop: take the thread lock, ask the
// moderator for the next role, spawn the agent with the protocol's
// arguments and environment (or, for this program's own built-in agents
// that an InProcess hook accepts, run it inside this process with the same
// arguments, environment, limits and result handling), verify the StepNode
// it reports, and append it to the thread with a compare-and-swap. Failed attempts are recorded on
// refs/uwf/attempts/<thread>; the head only ever moves to a verified step.
package engine
