// Command git-uwf is the git plugin behind `git uwf`: it runs multi-role
// AI-agent workflows and keeps their state in the repository's git object
// database. Run `git uwf -h` or see git-uwf(1).
package main

import (
	"os"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
)

func main() {
	// git-uwf supervises the agents it spawns (see root.Main): a copy of
	// it started for that does only this.
	agentkit.SuperviseIfAsked()
	os.Exit(root.Main())
}
