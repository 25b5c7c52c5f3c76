// Package chain keeps git-uwf threads and workflows in git.
//
// A workflow version is a commit on refs/uwf/workflows/<name>; a thread is
// refs/uwf/threads/<ULID>, whose first-parent history is the step chain:
// the root commit holds the StartNode, every later commit one StepNode (or
// a terminal CancelNode). Each commit's tree makes the thread
// self-contained and reachable for push and gc:
//
//	node        the head node of this commit (StartNode, StepNode, CancelNode)
//	start       the thread's StartNode (same blob in every commit)
//	workflow/   the pinned workflow version (shared by oid, costs nothing)
//	nodes/      every node this commit introduces, named by alias
//	*.md/*.yaml human-readable copies: task, output body, structured output, prompt
//
// A fork is a new thread ref pointing at any existing step commit, so the
// history is shared, not copied. Refs only move through a compare-and-swap
// (git update-ref --stdin); objects are written in-process (objects.DB).
//
// Thread state (idle, suspended, completed, cancelled, failed) is derived
// from the head and the workflow; nothing mutable needs to travel.
package chain
