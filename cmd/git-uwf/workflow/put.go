package workflow

import (
	"context"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/internal/iostreams"
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
		ArgsUsage: "<file>",
		Description: "Validates <file> (a YAML file, or a directory holding index.yaml) and records it on\n" +
			"refs/uwf/workflows/<name>. Putting the version already registered changes nothing.\n" +
			"An invalid file is reported problem by problem and nothing is written.",
		Action: func(c *cli.Context) error {
			file, err := cmdutil.OneArg(c, "workflow file")
			if err != nil {
				return err
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return putRun(c.Context, &PutOptions{IO: f.IO, Getwd: f.Getwd, Repo: f.Repo, Format: format, File: file})
		},
	}
}

func putRun(ctx context.Context, opts *PutOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	w, err := loadFile(opts.Getwd, opts.File)
	if err != nil {
		return err
	}
	if err := checkRegistry(ctx, repo, opts.Getwd, opts.File, w); err != nil {
		return err
	}
	info, changed, err := repo.RegisterWorkflow(ctx, w)
	if err != nil {
		return fmt.Errorf("register workflow %s from %s: %w", w.Name, opts.File, err)
	}
	refName := chain.WorkflowsPrefix + info.Name
	ref, err := repo.Store.Storer().Reference(plumbing.ReferenceName(refName))
	if err != nil {
		return fmt.Errorf("read %s: %w", refName, err)
	}
	res := PutResult{Name: info.Name, Hash: string(info.Alias), Commit: ref.Hash().String(), Changed: changed}
	return cmdutil.Print(opts.IO, opts.Format, res, func(w io.Writer) error {
		if changed {
			_, err := fmt.Fprintf(w, "registered %s as %s (%s)\n", res.Name, res.Hash, refName)
			return err
		}
		_, err := fmt.Fprintf(w, "%s is already at %s\n", res.Name, res.Hash)
		return err
	})
}
