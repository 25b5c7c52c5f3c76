// Package reviewcmd implements `git uwf review`: the story behind a range of
// code commits (package review), as markdown for a pull request or as
// json/yaml, and `--check` for CI.
//
// The action parses the command line into Options and calls
// reviewRun(ctx, opts), as every command verb does.
package reviewcmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/review"
)

// Exit codes of `git uwf review --check`, for CI.
const (
	// ExitProblems: the check ran and found problems (one line each).
	ExitProblems = 1
	// ExitCannotCheck: the check could not run (git failed, the remote
	// cannot be listed, no repository). The usage code 2 is for a range
	// that does not parse or a missing default range.
	ExitCannotCheck = 3
)

// Options are the inputs of `review`.
type Options struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format // text is markdown

	// Range is the revision range ("" for the current branch against the
	// merge base with its upstream).
	Range string
	// Check prints the problems instead of the report.
	Check bool
	// Remote, when set, must hold every thread.
	Remote string
}

// NewCmdReview returns the review command.
func NewCmdReview(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "review",
		Usage:     "Show the steps behind every commit of a range (markdown for a pull request), or --check that they are all there",
		ArgsUsage: "[<range>]",
		Description: "The range is a git revision range (main..HEAD), a single revision R meaning R..HEAD, or by default\n" +
			"the current branch against the merge base with its upstream. Commits tie to steps with Uwf-Step trailers.\n" +
			"--check prints one line per problem and exits 0 (none), 1 (problems), 2 (bad range) or 3 (could not check).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Usage: "print one line per problem and exit 1 if there is any (for CI)"},
			&cli.StringFlag{Name: "remote", Usage: "also require every thread to be on `REMOTE` (git ls-remote)"},
			&cli.StringFlag{Name: "format", Usage: "output `FORMAT`: markdown (text), json or yaml", Value: "markdown"},
		},
		Action: func(c *cli.Context) error {
			opts, err := parse(c)
			if err != nil {
				return err
			}
			opts.IO, opts.Repo = f.IO, f.Repo
			err = reviewRun(c.Context, opts)
			if opts.Check {
				return checkExit(err)
			}
			return err
		},
	}
}

// parse reads the range argument and the flags.
func parse(c *cli.Context) (*Options, error) {
	o := &Options{}
	if c.NArg() > 1 {
		return o, cmdutil.FlagErrorf("expected at most one range, got %d arguments", c.NArg())
	}
	o.Range = strings.TrimSpace(c.Args().First())
	o.Check, o.Remote = c.Bool("check"), strings.TrimSpace(c.String("remote"))
	if c.IsSet("remote") && o.Remote == "" {
		return o, cmdutil.FlagErrorf("--remote: empty remote name")
	}
	value := "markdown"
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && slices.Contains(ctx.LocalFlagNames(), "format") {
			value = ctx.String("format")
			break
		}
	}
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "markdown", "md", "text", "":
		o.Format = cmdutil.FormatText
	default:
		format, err := cmdutil.ParseFormat(value)
		if err != nil {
			return o, cmdutil.FlagErrorf("--format: unknown format %q: want markdown, json or yaml", value)
		}
		o.Format = format
	}
	return o, nil
}

func reviewRun(ctx context.Context, o *Options) error {
	repo, err := o.Repo(ctx)
	if err != nil {
		return err
	}
	rep, err := review.Build(ctx, repo, review.Options{Range: o.Range, Remote: o.Remote})
	if err != nil {
		if errors.Is(err, review.ErrBadRange) {
			return &cmdutil.FlagError{Err: err, Command: "review"}
		}
		return err
	}
	if o.Check {
		// One line per problem on stdout, and a summary on stderr.
		for _, p := range rep.Problems {
			fmt.Fprintf(o.IO.Out, "problem: %s\n", p)
		}
		if len(rep.Problems) > 0 {
			return &cmdutil.ExitError{Code: ExitProblems, Err: fmt.Errorf("review %s: %d problem(s) in %d commit(s)", rep.Range, len(rep.Problems), rep.Summary.Commits)}
		}
		fmt.Fprintf(o.IO.ErrOut, "review %s: %d commit(s), %d with a step, %d without; no problem\n", rep.Range, rep.Summary.Commits, rep.Summary.WithStep, rep.Summary.WithoutStep)
		return nil
	}
	return cmdutil.Print(o.IO, o.Format, rep, rep.WriteMarkdown)
}

// checkExit maps an error of --check to the exit codes CI relies on: the
// problems and usage errors keep theirs, cancellation stays 130, anything
// else means the check could not run.
func checkExit(err error) error {
	if err == nil {
		return nil
	}
	var ee *cmdutil.ExitError
	var fe *cmdutil.FlagError
	if errors.As(err, &ee) || errors.As(err, &fe) || errors.Is(err, context.Canceled) || errors.Is(err, cmdutil.ErrCancelled) {
		return err
	}
	return &cmdutil.ExitError{Code: ExitCannotCheck, Err: err}
}
