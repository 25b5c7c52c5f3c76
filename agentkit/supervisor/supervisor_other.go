//go:build !unix

package supervisor

// Arg is the first argument of a supervisor (see the Unix implementation).
const Arg = "__uwf-agent-supervisor"

// IfAsked returns at once: agents are only spawned on Unix.
func IfAsked() {}
