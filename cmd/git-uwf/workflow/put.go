package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/moderator"
)

// PutOptions are the inputs of `workflow put`.
type PutOptions struct {
	IO     *iostreams.IOStreams
	Getwd  func() (string, error)
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	File string
}

// PutResult is the machine output of `workflow put`.
type PutResult struct {
	Name    string `json:"name"`
	Hash    string `json:"hash"`
	Commit  string `json:"commit"`
	Changed bool   `json:"changed"`
}

func newCmdPut(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "put",
		Aliases:   []string{"add"},
		Usage:     "Register a workflow file as the newest version of its workflow",
		ArgsUsage: "<file|folder>",
		Description: "Validates <file> (a YAML file, or a directory holding index.yaml) and records it on\n" +
			"refs/uwf/workflows/<name>. Putting the version already registered changes nothing.\n" +
			"An invalid file is reported problem by problem and nothing is written.\n" +
			"A folder without index.yaml (such as an upstream .workflows/ folder) registers every\n" +
			"*.yaml, *.yml and <name>/index.yaml in it, once all of them are valid.",
		Action: argAction("workflow file", cmdutil.FormatOf, func(ctx context.Context, file string, format cmdutil.Format) error {
			return putRun(ctx, &PutOptions{IO: f.IO, Getwd: f.Getwd, Repo: f.Repo, Format: format, File: file})
		}),
	}
}

func putRun(ctx context.Context, opts *PutOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	files, folder, err := workflowFolder(opts.Getwd, opts.File)
	if err != nil {
		return err
	}
	if folder {
		return putFolder(ctx, opts, repo, files)
	}
	w, err := loadFile(opts.Getwd, opts.File)
	if err != nil {
		return err
	}
	if err := printNotes(opts.IO.ErrOut, w); err != nil {
		return err
	}
	res, err := register(ctx, repo, opts.Getwd, w, opts.File)
	if err != nil {
		return err
	}
	return cmdutil.Print(opts.IO, opts.Format, res, func(out io.Writer) error { return printPut(out, res) })
}

// putFolder registers every workflow of a folder (an upstream
// .workflows/ folder, say): all are validated first, and nothing is
// written unless all are valid and their names distinct.
func putFolder(ctx context.Context, opts *PutOptions, repo *chain.Repo, files []string) error {
	var loaded []*moderator.Workflow
	var invalid []error
	from := map[string]string{}
	for _, file := range files {
		w, err := loadFile(opts.Getwd, file)
		if err != nil {
			invalid = append(invalid, err)
			continue
		}
		if prev, dup := from[w.Name]; dup {
			invalid = append(invalid, fmt.Errorf("%s and %s both declare workflow %s", prev, file, w.Name))
			continue
		}
		from[w.Name] = file
		loaded = append(loaded, w)
	}
	if len(invalid) > 0 {
		return fmt.Errorf("nothing registered from %s:\n%w", opts.File, errors.Join(invalid...))
	}
	results := make([]PutResult, 0, len(loaded))
	for _, w := range loaded {
		if err := printNotes(opts.IO.ErrOut, w); err != nil {
			return err
		}
		res, err := register(ctx, repo, opts.Getwd, w, from[w.Name])
		if err != nil {
			return err
		}
		results = append(results, res)
	}
	return cmdutil.Print(opts.IO, opts.Format, results, func(out io.Writer) error {
		for _, res := range results {
			if err := printPut(out, res); err != nil {
				return err
			}
		}
		return nil
	})
}

func register(ctx context.Context, repo *chain.Repo, getwd func() (string, error), w *moderator.Workflow, file string) (PutResult, error) {
	if err := checkRegistry(ctx, repo, getwd, file, w); err != nil {
		return PutResult{}, err
	}
	info, changed, err := repo.RegisterWorkflow(ctx, w)
	if err != nil {
		return PutResult{}, fmt.Errorf("register workflow %s from %s: %w", w.Name, file, err)
	}
	refName := chain.WorkflowsPrefix + info.Name
	tip, err := repo.ResolveRef(refName)
	if err != nil {
		return PutResult{}, fmt.Errorf("read %s: %w", refName, err)
	}
	if tip.IsZero() {
		return PutResult{}, fmt.Errorf("read %s: reference not found", refName)
	}
	return PutResult{Name: info.Name, Hash: string(info.Alias), Commit: tip.String(), Changed: changed}, nil
}

func printPut(w io.Writer, res PutResult) error {
	if res.Changed {
		_, err := fmt.Fprintf(w, "registered %s as %s (%s)\n", res.Name, res.Hash, chain.WorkflowsPrefix+res.Name)
		return err
	}
	_, err := fmt.Fprintf(w, "%s is already at %s\n", res.Name, res.Hash)
	return err
}
