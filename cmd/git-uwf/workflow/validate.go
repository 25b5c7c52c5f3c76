package workflow

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
	"github.com/git-uwf/git-uwf/moderator"
)

// ValidateOptions are the inputs of `workflow validate`.
type ValidateOptions struct {
	IO     *iostreams.IOStreams
	Getwd  func() (string, error)
	Format cmdutil.Format
	// Repo, when it finds a repository, checks roles played by workflows
	// against its registry.
	Repo func(context.Context) (*chain.Repo, error)

	File string
}

// ValidateResult is the machine output of `workflow validate`: Name and
// Roles when the file is valid, Problems when it is not.
type ValidateResult struct {
	Valid    bool      `json:"valid"`
	Name     string    `json:"name,omitempty"`
	Roles    []string  `json:"roles,omitempty"`
	Problems []Problem `json:"problems,omitempty"`
	// Notes are remarks on a valid file, such as a file name that differs
	// from the declared name (version 1: the declared name is used).
	Notes []Problem `json:"notes,omitempty"`
}

// Problem is one validation problem in machine output. Line and Col are
// 1-based; 0 means unknown.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

func newCmdValidate(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "Check a workflow file without writing anything",
		ArgsUsage: "<file>",
		Description: "Loads <file> with its includes and reports every problem as file:line:col. Works\n" +
			"outside a git repository. Exits 1 when the workflow is invalid.",
		Action: argAction("workflow file", cmdutil.FormatOf, func(ctx context.Context, file string, format cmdutil.Format) error {
			return validateRun(ctx, &ValidateOptions{IO: f.IO, Getwd: f.Getwd, Format: format, File: file, Repo: f.Repo})
		}),
	}
}

func validateRun(ctx context.Context, opts *ValidateOptions) error {
	w, err := loadFile(opts.Getwd, opts.File)
	if err == nil && opts.Repo != nil && usesWorkflows(w) {
		if repo, rerr := opts.Repo(ctx); rerr == nil {
			err = checkRegistry(ctx, repo, opts.Getwd, opts.File, w)
		}
	}
	var invalid *InvalidError
	if errors.As(err, &invalid) {
		if opts.Format == cmdutil.FormatText {
			return err
		}
		res := ValidateResult{Valid: false, Problems: make([]Problem, len(invalid.Problems))}
		for i, p := range invalid.Problems {
			res.Problems[i] = Problem{File: p.File, Line: p.Line, Col: p.Col, Message: p.Message}
		}
		if err := cmdutil.Print(opts.IO, opts.Format, res, nil); err != nil {
			return err
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure}
	}
	if err != nil {
		return err
	}
	res := ValidateResult{Valid: true, Name: w.Name, Roles: append([]string{}, w.RoleOrder...)}
	for _, n := range w.Notes {
		res.Notes = append(res.Notes, Problem{File: n.File, Line: n.Line, Col: n.Col, Message: n.Message})
	}
	return cmdutil.Print(opts.IO, opts.Format, res, func(out io.Writer) error {
		if err := printNotes(out, w); err != nil {
			return err
		}
		noun := "roles"
		if len(w.RoleOrder) == 1 {
			noun = "role"
		}
		_, err := fmt.Fprintf(out, "%s: workflow %s is valid (%d %s: %s)\n",
			opts.File, w.Name, len(w.RoleOrder), noun, strings.Join(w.RoleOrder, ", "))
		return err
	})
}

// usesWorkflows reports whether a role of w is played by a workflow.
func usesWorkflows(w *moderator.Workflow) bool {
	for _, r := range w.Roles {
		if r.Workflow != "" {
			return true
		}
	}
	return false
}
