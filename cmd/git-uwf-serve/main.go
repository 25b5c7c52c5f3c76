// Command git-uwf-serve is git uwf's read-only web viewer: `git uwf serve`
// runs it with its arguments, and it takes exactly the flags, prints the
// help and exits with the codes documented there (see git-uwf(1)). It is a
// program of its own so that git-uwf does not link the viewer (see
// docs/architecture.md, "Why a second binary"); install it next to git-uwf.
package main

import (
	"os"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/serve"
)

func main() { os.Exit(root.MainCommand(serve.NewCmdServe)) }
