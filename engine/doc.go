// Package engine runs the git-uwf step loop: take the thread lock, ask the
// moderator for the next role, run the agent through the Agent interface
// (a spawned command with the protocol's arguments and environment, or one
// of this program's built-in agents called as a Go function with the same
// environment, limits and result handling), verify the StepNode it
// reports, and append it to the thread with a compare-and-swap. Failed
// attempts are recorded on refs/uwf/attempts/<thread>; the head only ever
// moves to a verified step.
package engine
