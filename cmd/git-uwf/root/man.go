package root

import (
	"bytes"
	"fmt"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/internal/cmdutil"
)

// manExtra is appended to the generated page: the exit codes (see the
// cmdutil package documentation) and the environment.
const manExtra = `
# EXIT STATUS

**0**
: Success.

**1**
: Failure. The reason is printed on stderr as "error: ...", except where a command documents a silent exit 1 (e.g. "cas has" when the object is absent).

**2**
: Usage error: unknown command or flag, bad or missing argument.

**75**
: Temporarily unavailable: a lock is held by another process, a workflow's concurrency limit refused the step (overflow drop, or discarded from a full queue), a worker holds the thread's lease, or **thread join --timeout** ran out. Try again later.

**130**
: Cancelled (interrupted by SIGINT or SIGTERM).

# ENVIRONMENT

**UWF_MOCK_SCRIPT**
: The script of **git uwf agent mock** when **--script** is not given.

**UWF_SPAWN_AGENTS**
: Set to 1, **thread step** runs the built-in agents (mock, pipe, llm) as processes of their own instead of inside its own process.

**GOGC**, **GOMEMLIMIT**
: When neither is set, **thread step** and **thread list** let the Go garbage collector run less often (GOGC=400 under a 48 MiB soft limit); setting either keeps the Go runtime's behaviour.

# FILES

**$GIT_COMMON_DIR/uwf/locks/**, **limits/**, **kill/**, **background/**
: Per-thread step locks, per-workflow concurrency slots and queue, kill flags raised by **thread cancel** for a running step, and the records, logs and outcomes of **thread step --background**. All are local to the machine; none travels with the repository. See docs/running-many-threads.md.

# SEE ALSO

**git**(1)
`

func newCmdMan(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:   "man",
		Usage:  "Print the git-uwf(1) man page (roff) on stdout",
		Hidden: true,
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return cmdutil.FlagErrorf("man takes no arguments")
			}
			page, err := manPage(c.App)
			if err != nil {
				return err
			}
			_, err = f.IO.Out.Write(page)
			return err
		},
	}
}

// manPage renders app as the git-uwf(1) man page.
func manPage(app *cli.App) ([]byte, error) {
	name := app.Name
	app.Name = "git-uwf" // the page's name, as `man git-uwf` finds it
	md, err := app.ToMarkdown()
	app.Name = name
	if err != nil {
		return nil, fmt.Errorf("render man page: %w", err)
	}
	var src bytes.Buffer
	fmt.Fprintf(&src, "%% git-uwf 1 \"\" \"git-uwf %s\" \"Git Manual\"\n\n", Version())
	src.WriteString(md)
	src.WriteString(manExtra)
	return md2man.Render(src.Bytes()), nil
}
