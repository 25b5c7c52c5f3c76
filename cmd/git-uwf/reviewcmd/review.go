// Package reviewcmd implements `git uwf review`: the story behind a range of
// code commits (package review), as markdown for a pull request or as
// json/yaml, and `--check` for CI.
package reviewcmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
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

type options struct {
	rangeArg string
	check    bool
	remote   string
	format   cmdutil.Format
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
			err = run(c.Context, f, opts)
			if opts.check {
				return checkExit(err)
			}
			return err
		},
	}
}

func parse(c *cli.Context) (options, error) {
	var o options
	if c.NArg() > 1 {
		return o, cmdutil.FlagErrorf("expected at most one range, got %d arguments", c.NArg())
	}
	o.rangeArg = strings.TrimSpace(c.Args().First())
	o.check, o.remote = c.Bool("check"), strings.TrimSpace(c.String("remote"))
	if c.IsSet("remote") && o.remote == "" {
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
		o.format = cmdutil.FormatText
	default:
		format, err := cmdutil.ParseFormat(value)
		if err != nil {
			return o, cmdutil.FlagErrorf("--format: unknown format %q: want markdown, json or yaml", value)
		}
		o.format = format
	}
	return o, nil
}

func run(ctx context.Context, f *cmdutil.Factory, o options) error {
	repo, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	rep, err := review.Build(ctx, repo, review.Options{Range: o.rangeArg, Remote: o.remote})
	if err != nil {
		if errors.Is(err, review.ErrBadRange) {
			return &cmdutil.FlagError{Err: err, Command: "review"}
		}
		return err
	}
	if o.check {
		// One line per problem on stdout, and a summary on stderr.
		for _, p := range rep.Problems {
			fmt.Fprintf(f.IO.Out, "problem: %s\n", p)
		}
		if len(rep.Problems) > 0 {
			return &cmdutil.ExitError{Code: ExitProblems, Err: fmt.Errorf("review %s: %d problem(s) in %d commit(s)", rep.Range, len(rep.Problems), rep.Summary.Commits)}
		}
		fmt.Fprintf(f.IO.ErrOut, "review %s: %d commit(s), %d with a step, %d without; no problem\n", rep.Range, rep.Summary.Commits, rep.Summary.WithStep, rep.Summary.WithoutStep)
		return nil
	}
	return cmdutil.Print(f.IO, o.format, rep, rep.WriteMarkdown)
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
