// Command git-uwf-agent-supervisor is the supervisor git-uwf starts beside
// each agent it spawns as a process of its own (see package
// agentkit/supervisor): it leads the agent's process group, kills the
// group when git-uwf dies, and holds the thread's lock until the group is
// gone. It is a program of its own, linking the standard library and
// package supervisor only, so that it starts in about the time of any
// process; install it next to git-uwf. Without it git-uwf starts a copy of
// itself for the same work (see docs/architecture.md).
//
// Only git-uwf runs it, with arguments it does not document.
package main

import (
	"os"

	"github.com/git-uwf/git-uwf/agentkit/supervisor"
)

func main() {
	supervisor.IfAsked()
	os.Stderr.WriteString("git-uwf-agent-supervisor: git-uwf runs this program to supervise an agent; it takes no commands\n")
	os.Exit(2)
}
