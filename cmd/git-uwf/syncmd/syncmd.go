// Package syncmd implements the commands that share git-uwf data through a
// git remote: git uwf fetch, push and sync, and git uwf remote setup. They
// are thin: they parse arguments, call uwfsync and print its
// Report (text, or --format json|yaml as {"remote","results":[…]}).
//
// Each verb is one small constructor whose action parses the command line
// into an options struct and calls <verb>Run(ctx, opts).
package syncmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// Options are the inputs of fetch, push and sync.
type Options struct {
	IO *iostreams.IOStreams
	// Repo opens the repository. Not Factory.Repo: opening through it
	// would already take over fetched threads, and the command's report
	// would then miss them.
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	// Remote is the remote argument ("" means the configured uwf.remote).
	Remote string
	// NoFetch (fetch) reconciles what a plain git fetch already brought.
	NoFetch bool
	// DryRun (push) shows what would be pushed.
	DryRun bool
}

// parseOptions reads the argument and flags fetch, push and sync share.
func parseOptions(c *cli.Context, f *cmdutil.Factory, verb string) (*Options, error) {
	if c.NArg() > 1 {
		return nil, cmdutil.FlagErrorf("%s takes at most one remote, got %d arguments", verb, c.NArg())
	}
	format, err := cmdutil.FormatOf(c)
	if err != nil {
		return nil, err
	}
	return &Options{IO: f.IO, Format: format, Remote: c.Args().First(),
		Repo: func(ctx context.Context) (*chain.Repo, error) { return cmdutil.OpenRepoWithoutAdopt(ctx, f) }}, nil
}

// exchange is what fetch, push and sync share: resolve the remote, run,
// print, and exit 1 when a ref was rejected or failed.
func exchange(ctx context.Context, opts *Options, verb string,
	run func(context.Context, *chain.Repo, *Options) (*uwfsync.Report, error)) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	if opts.Remote, err = resolveRemote(ctx, repo, opts.Remote, verb); err != nil {
		return err
	}
	rep, err := run(ctx, repo, opts)
	if rep != nil {
		if perr := PrintReport(opts.IO, opts.Format, rep); perr != nil {
			return perr
		}
	}
	if err != nil {
		return err
	}
	for _, res := range rep.Results {
		if res.Kind == uwfsync.KindRejected || res.Kind == uwfsync.KindError {
			return cmdutil.ErrSilent
		}
	}
	return nil
}

// resolveRemote returns remote, or the configured default when it is "".
func resolveRemote(ctx context.Context, repo *chain.Repo, remote, verb string) (string, error) {
	if remote != "" {
		return remote, nil
	}
	def, err := uwfsync.DefaultRemote(ctx, repo)
	if errors.Is(err, uwfsync.ErrNoRemote) {
		return "", cmdutil.FlagErrorf("no remote given: pass one (e.g. git uwf %s origin) or run git uwf remote setup <remote>", verb)
	}
	return def, err
}

// PrintReport writes a reconcile report the way fetch does (thread import
// uses it for bundles): one line per changed ref, or the JSON/YAML report.
func PrintReport(ios *iostreams.IOStreams, format cmdutil.Format, rep *uwfsync.Report) error {
	return cmdutil.Print(ios, format, rep, func(w io.Writer) error {
		n := 0
		for _, res := range rep.Results {
			if line := describe(res); line != "" {
				n++
				if _, err := fmt.Fprintln(w, line); err != nil {
					return err
				}
			}
		}
		if n == 0 {
			_, err := fmt.Fprintf(w, "up to date with %s\n", rep.Remote)
			return err
		}
		return nil
	})
}

// describe renders one result as a line of text; "" when nothing changed.
func describe(res uwfsync.Result) string {
	what, name := refKind(res.Ref)
	switch res.Kind {
	case uwfsync.KindNew:
		return "new " + what + " " + name + count(res.Steps, what)
	case uwfsync.KindFastForward:
		line := "fast-forward " + qualified(what, name) + count(res.Steps, what)
		if res.Reason != "" && res.Steps == 0 {
			line += ": " + res.Reason
		}
		return line
	case uwfsync.KindForked:
		_, fork := refKind(res.Fork)
		switch what {
		case "thread":
			return fmt.Sprintf("diverged %s: your steps saved as fork %s", name, fork)
		default:
			return fmt.Sprintf("diverged %s %s: your versions saved as %s", what, name, fork)
		}
	case uwfsync.KindMerged, uwfsync.KindDiverged:
		return string(res.Kind) + " " + qualified(what, name) + ": " + res.Reason
	case uwfsync.KindPushed:
		return "pushed " + what + " " + name
	case uwfsync.KindRejected, uwfsync.KindInvalid, uwfsync.KindError:
		return string(res.Kind) + " " + res.Ref + ": " + res.Reason
	}
	return ""
}

// refKind splits refs/uwf/<ns>/<name> into a word for people and the name.
func refKind(ref string) (what, name string) {
	ns, name, _ := strings.Cut(strings.TrimPrefix(ref, chain.RefPrefix), "/")
	switch ns {
	case "threads":
		return "thread", name
	case "workflows":
		return "workflow", name
	case "attempts":
		return "attempts", name
	}
	return ns, name
}

// qualified names a ref in a line: threads by id alone, the rest with their kind.
func qualified(what, name string) string {
	switch what {
	case "thread":
		return name
	case "attempts":
		return "attempts of " + name
	}
	return what + " " + name
}

func count(n int, what string) string {
	unit := "step"
	switch {
	case n == 0 || what == "attempts":
		return ""
	case what == "workflow":
		unit = "version"
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf(" (%d %s)", n, unit)
}
