package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/internal/text"
	"github.com/git-uwf/git-uwf/moderator"
)

// ListOptions are the inputs of `workflow list`.
type ListOptions struct {
	IO     *iostreams.IOStreams
	Getwd  func() (string, error)
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format
}

// Origins of a `workflow list` entry.
const (
	OriginRegistry = "registry"
	OriginFile     = "file"
)

// ListEntry is one element of the machine output of `workflow list`.
// Registry entries carry Hash and UpdatedAt; file entries (workflows found
// in .uwf/workflows/ that are not registered) carry Path, relative to the
// working directory, and Error when the file is invalid.
type ListEntry struct {
	Name        string     `json:"name"`
	Origin      string     `json:"origin"`
	Hash        string     `json:"hash,omitempty"`
	Description string     `json:"description"`
	UpdatedAt   *time.Time `json:"updatedAt,omitempty"`
	Path        string     `json:"path,omitempty"`
	Error       string     `json:"error,omitempty"`
}

func newCmdList(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:    "list",
		Aliases: []string{"ls"},
		Usage:   "List registered workflows and unregistered workflow files",
		Description: "Lists refs/uwf/workflows/*, then the workflow files in .uwf/workflows/ (from the\n" +
			"current directory up to the repository top) whose name is not registered.",
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c); err != nil {
				return err
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return listRun(c.Context, &ListOptions{IO: f.IO, Getwd: f.Getwd, Repo: f.Repo, Format: format})
		},
	}
}

func listRun(ctx context.Context, opts *ListOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	registered, err := repo.Workflows(ctx)
	if err != nil {
		return err
	}
	entries := []ListEntry{}
	names := map[string]bool{}
	for _, rw := range registered {
		t := rw.UpdatedAt
		entries = append(entries, ListEntry{Name: rw.Name, Origin: OriginRegistry, Hash: string(rw.Hash),
			Description: rw.Description, UpdatedAt: &t})
		names[rw.Name] = true
	}
	wd, err := opts.Getwd()
	if err != nil {
		return err
	}
	files, err := workflowFiles(wd, repo.Info.WorkTree)
	if err != nil {
		return err
	}
	for _, file := range files {
		if names[file.name] {
			continue
		}
		e := ListEntry{Name: file.name, Origin: OriginFile, Path: file.rel}
		w, err := loadFile(opts.Getwd, file.rel)
		switch {
		case err != nil:
			e.Error = text.FirstLine(strings.TrimPrefix(errText(err), "error: "), 200)
		case w.Name != file.name:
			e.Error = fmt.Sprintf("file declares workflow %q", w.Name)
		default:
			e.Description = w.Description
		}
		names[file.name] = true
		entries = append(entries, e)
	}
	slices.SortStableFunc(entries, func(a, b ListEntry) int { return strings.Compare(a.Name, b.Name) })
	return cmdutil.Print(opts.IO, opts.Format, entries, func(out io.Writer) error {
		if len(entries) == 0 {
			_, err := fmt.Fprintln(out, "no workflows (register one with 'git uwf workflow put <file>')")
			return err
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSOURCE\tHASH\tUPDATED\tDESCRIPTION")
		for _, e := range entries {
			source, hash, updated, desc := OriginRegistry, e.Hash, "-", text.FirstLine(e.Description, 60)
			if e.UpdatedAt != nil {
				updated = e.UpdatedAt.Format("2006-01-02 15:04")
			}
			if e.Origin == OriginFile {
				source, hash = e.Path, "-"
				if e.Error != "" {
					desc = "invalid: " + text.FirstLine(strings.TrimPrefix(e.Error, e.Path+":"), 60)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, source, hash, updated, desc)
		}
		return tw.Flush()
	})
}

// errText is the first line of an error's message, which for an invalid
// workflow is the report's first problem.
func errText(err error) string {
	var invalid *InvalidError
	if errors.As(err, &invalid) && len(invalid.Problems) > 0 {
		return invalid.Problems[0].String()
	}
	return err.Error()
}

// workflowFile is a workflow found in a .uwf/workflows/ directory.
type workflowFile struct {
	name string // workflow name: the file stem or the directory name
	rel  string // path relative to the working directory
}

// workflowFiles lists the workflows in .uwf/workflows/ of wd and its
// parents up to top (the work tree; "" means wd only), nearest first, each
// name once — the same precedence moderator.FindFile uses.
func workflowFiles(wd, top string) ([]workflowFile, error) {
	var out []workflowFile
	seen := map[string]bool{}
	for dir := wd; ; {
		wfDir := filepath.Join(dir, moderator.ProjectDir)
		ents, err := os.ReadDir(wfDir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("read %s: %w", wfDir, err)
		}
		for _, ent := range ents {
			name, file := workflowEntry(wfDir, ent)
			if name == "" || seen[name] {
				continue
			}
			seen[name] = true
			rel, err := filepath.Rel(wd, filepath.Join(wfDir, file))
			if err != nil {
				rel = filepath.Join(wfDir, file)
			}
			out = append(out, workflowFile{name: name, rel: filepath.ToSlash(rel)})
		}
		parent := filepath.Dir(dir)
		if top == "" || dir == top || parent == dir {
			return out, nil
		}
		dir = parent
	}
}

// workflowEntry recognizes <name>.yaml, <name>.yml and <name>/index.yaml.
func workflowEntry(dir string, ent os.DirEntry) (name, file string) {
	if ent.IsDir() {
		idx := filepath.Join(ent.Name(), "index.yaml")
		if fi, err := os.Stat(filepath.Join(dir, idx)); err == nil && !fi.IsDir() {
			return ent.Name(), idx
		}
		return "", ""
	}
	for _, ext := range []string{".yaml", ".yml"} {
		if stem, ok := strings.CutSuffix(ent.Name(), ext); ok && stem != "" && !strings.HasPrefix(stem, ".") {
			return stem, ent.Name()
		}
	}
	return "", ""
}
