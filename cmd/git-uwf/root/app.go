package root

import (
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

// App returns the command tree exactly as Run runs it, registered commands
// and global flags included, for programs that describe it rather than run
// it (cmd/git-uwf/genman writes the man page from it, so a command registered
// in Commands appears there without further work).
func App(f *cmdutil.Factory) *cli.App { return newApp(f, appFlags(), Commands(f)) }
