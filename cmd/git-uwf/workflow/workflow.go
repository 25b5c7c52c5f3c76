package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/moderator"
)

// NewCmdWorkflow returns the `workflow` command group.
func NewCmdWorkflow(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "workflow",
		Usage: "Register, validate and inspect workflows",
		Description: "A workflow is a YAML file of roles and a routing graph. `put` stores a version of it\n" +
			"on refs/uwf/workflows/<name>; threads pin the version they started with.",
		Subcommands: []*cli.Command{
			newCmdPut(f),
			newCmdValidate(f),
			newCmdShow(f),
			newCmdList(f),
			newCmdHistory(f),
			newCmdGraph(f),
			newCmdRollback(f),
			newCmdRemove(f),
		},
	}
}

// InvalidError is a workflow file that failed validation. Its message is the
// whole report, one "file:line:col: message" line per problem, with file
// names as the user would write them.
type InvalidError struct {
	Path     string
	Problems []moderator.Problem
}

func (e *InvalidError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "workflow %s is invalid:", e.Path)
	for _, p := range e.Problems {
		sb.WriteString("\n")
		sb.WriteString(p.String())
	}
	return sb.String()
}

// loadFile loads and validates the workflow file path (relative to getwd).
// A validation failure is an *InvalidError whose problems name files
// relative to the directory the user named.
func loadFile(getwd func() (string, error), path string) (*moderator.Workflow, error) {
	abs, err := cmdutil.AbsPath(getwd, path)
	if err != nil {
		return nil, err
	}
	w, err := moderator.LoadFile(abs)
	if err == nil {
		// Notes name files as the user would, like problems.
		w.Notes = rebase(abs, path, w.Notes)
		return w, nil
	}
	var ve *moderator.ValidationError
	if !errors.As(err, &ve) {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("workflow file %s does not exist", path)
		}
		return nil, err
	}
	return nil, &InvalidError{Path: path, Problems: rebase(abs, path, ve.Problems)}
}

// workflowFolder lists the workflow files of a folder that is not itself
// a workflow (it has no index.yaml): its *.yaml and *.yml files and its
// subfolders with an index.yaml, sorted. ok is false when path is a file
// or a workflow folder.
func workflowFolder(getwd func() (string, error), path string) (files []string, ok bool, err error) {
	abs, err := cmdutil.AbsPath(getwd, path)
	if err != nil {
		return nil, false, err
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return nil, false, nil
	}
	if _, err := os.Stat(filepath.Join(abs, "index.yaml")); err == nil {
		return nil, false, nil
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, false, fmt.Errorf("read workflow folder %s: %w", path, err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case e.IsDir():
			if fi, err := os.Stat(filepath.Join(abs, name, "index.yaml")); err == nil && !fi.IsDir() {
				files = append(files, filepath.Join(path, name))
			}
		case e.Type().IsRegular() && (strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")):
			files = append(files, filepath.Join(path, name))
		}
	}
	if len(files) == 0 {
		return nil, true, fmt.Errorf("workflow folder %s holds no workflow (no index.yaml, *.yaml, *.yml or <name>/index.yaml)", path)
	}
	return files, true, nil
}

// printNotes writes a loaded workflow's notes, one "file:line:col: note: …"
// line each.
func printNotes(out io.Writer, w *moderator.Workflow) error {
	for _, n := range w.Notes {
		n.Message = "note: " + n.Message
		if _, err := fmt.Fprintln(out, n.String()); err != nil {
			return err
		}
	}
	return nil
}

// rebase names the files of problems found loading abs relative to the
// directory the user named in path.
func rebase(abs, path string, ps []moderator.Problem) []moderator.Problem {
	base := filepath.Dir(path)
	if fi, statErr := os.Stat(abs); statErr == nil && fi.IsDir() {
		base = path
	}
	problems := make([]moderator.Problem, len(ps))
	for i, p := range ps {
		if p.File != "" {
			p.File = filepath.ToSlash(filepath.Join(base, filepath.FromSlash(p.File)))
		}
		problems[i] = p
	}
	return problems
}

// checkRegistry checks the roles of w played by workflows against the
// registry (registered, no cycle back to w); an *InvalidError when not.
func checkRegistry(ctx context.Context, repo *chain.Repo, getwd func() (string, error), path string, w *moderator.Workflow) error {
	ps := repo.CheckRoleWorkflows(ctx, w)
	if len(ps) == 0 {
		return nil
	}
	abs, err := cmdutil.AbsPath(getwd, path)
	if err != nil {
		return err
	}
	return &InvalidError{Path: path, Problems: rebase(abs, path, ps)}
}

// argAction is the action of a command that takes one argument (what
// names it in the error for a wrong count) and an output format read by
// formatOf: it checks both, then calls run.
func argAction(what string, formatOf func(*cli.Context) (cmdutil.Format, error),
	run func(ctx context.Context, arg string, format cmdutil.Format) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		arg, err := cmdutil.OneArg(c, what)
		if err != nil {
			return err
		}
		format, err := formatOf(c)
		if err != nil {
			return err
		}
		return run(c.Context, arg, format)
	}
}
