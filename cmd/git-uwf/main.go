// Command git-uwf is the git plugin behind `git uwf`: it runs multi-role
// AI-agent workflows and keeps their state in the repository's git object
// database. Run `git uwf -h` or see git-uwf(1).
package main

import (
	"os"

	// git-uwf supervises the agents it spawns (see root.Main): a copy of
	// it started for that does only this, from an init function that runs
	// before most others.
	_ "github.com/git-uwf/git-uwf/agentkit/supervisor/early"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
)

func main() { os.Exit(root.Main()) }
