// Package early runs the agent supervisor (package supervisor) from its
// init function, before the packages of the program that come later in
// Go's initialisation order (sorted by import path, after their
// dependencies) spend time setting themselves up: a program started only
// to supervise an agent then costs little more than a process start.
// Import it for its side effect in the main package of a program that
// names itself as agentkit.Invocation.Supervisor:
//
//	import _ "github.com/git-uwf/git-uwf/agentkit/supervisor/early"
package early

import "github.com/git-uwf/git-uwf/agentkit/supervisor"

func init() { supervisor.IfAsked() }
