package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/workdir"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// WorkflowDir is where a project keeps its workflow files.
const WorkflowDir = ".uwf/workflows"

// LoadWorkflowFile loads and validates a workflow file from disk. Includes
// resolve inside the file's directory and cannot leave it, not even
// through a symbolic link.
func LoadWorkflowFile(path string) (*moderator.Workflow, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("workflow file %s: %w", path, err)
	} else if fi.IsDir() {
		abs = filepath.Join(abs, "index.yaml")
	}
	dir, base := filepath.Split(abs)
	// The file itself is the one the user named (it may be a link);
	// its includes are read inside its folder only.
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("load workflow %s: %w", path, err)
	}
	fsys, err := openWorkflowFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("load workflow %s: %w", path, err)
	}
	defer fsys.Close()
	w, err := moderator.Parse(fsys, base, data)
	if err != nil {
		var ve *moderator.ValidationError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("workflow %s is invalid:\n%w", path, err)
		}
		return nil, fmt.Errorf("load workflow %s: %w", path, err)
	}
	return w, nil
}

// looksLikePath reports whether arg names a file rather than a workflow.
func looksLikePath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml")
}

// FindWorkflowFile looks for <name>.yaml|yml (or <name>/index.yaml) in
// .uwf/workflows/ of dir and its parents, up to stop (the repository top).
func FindWorkflowFile(dir, stop, name string) (string, bool) {
	for {
		for _, cand := range []string{name + ".yaml", name + ".yml", filepath.Join(name, "index.yaml")} {
			p := filepath.Join(dir, WorkflowDir, cand)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, true
			}
		}
		if dir == stop || stop == "" {
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// ResolveWorkflow turns a `<workflow>` argument into a stored workflow
// version: an alias (or unambiguous prefix) → a file path → a file in
// .uwf/workflows/ from the working directory up to the repository top →
// the registry (refs/uwf/workflows/<name>). Files are materialized into the
// object database (not registered).
func ResolveWorkflow(ctx context.Context, f *Factory, repo *chain.Repo, arg string) (*chain.WorkflowInfo, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return nil, FlagErrorf("a workflow name, alias or file is required")
	}
	if a, err := objects.ParseAlias(arg); err == nil {
		if info, err := repo.LoadWorkflow(ctx, a); err == nil {
			return info, nil
		}
	}
	wd, err := f.Getwd()
	if err != nil {
		return nil, err
	}
	if looksLikePath(arg) {
		path, err := AbsPath(f.Getwd, arg)
		if err != nil {
			return nil, err
		}
		w, err := LoadWorkflowFile(path)
		if err != nil {
			return nil, err
		}
		return repo.MaterializeWorkflow(ctx, w)
	}
	if path, ok := FindWorkflowFile(wd, repo.Info.WorkTree, arg); ok {
		w, err := LoadWorkflowFile(path)
		if err != nil {
			return nil, err
		}
		return repo.MaterializeWorkflow(ctx, w)
	}
	info, err := repo.FindWorkflow(ctx, arg)
	if errors.Is(err, chain.ErrUnknownWorkflow) {
		if registered, lerr := repo.Workflows(ctx); lerr == nil {
			names := make([]string, len(registered))
			for i, w := range registered {
				names[i] = w.Name
			}
			if hint := DidYouMean(arg, names); hint != "" {
				return nil, fmt.Errorf("%w%s", err, hint)
			}
		}
	}
	return info, err
}

// workflowFolder is the file system a workflow's `!include`s are read
// from: its folder, opened as an os.Root, so that no path and no symbolic
// link leads out of it (os.DirFS follows links anywhere, and the included
// text would be stored in objects and pushed).
type workflowFolder struct {
	root *os.Root
	fsys fs.FS
	dir  string
}

// errLinkLeavesFolder explains a refused include.
var errLinkLeavesFolder = errors.New("it is a symbolic link that leads out of the workflow folder; includes must stay inside it")

func openWorkflowFolder(dir string) (*workflowFolder, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &workflowFolder{root: root, fsys: root.FS(), dir: dir}, nil
}

// Open opens name (slash-separated, relative to the folder). A name that
// resolves outside the folder fails with errLinkLeavesFolder.
func (w *workflowFolder) Open(name string) (fs.File, error) {
	f, err := w.fsys.Open(name)
	if err == nil {
		return f, nil
	}
	// os.Root refuses an escape with an error of its own: say which rule
	// the include broke.
	if real, rerr := filepath.EvalSymlinks(filepath.Join(w.dir, filepath.FromSlash(name))); rerr == nil {
		if top, terr := filepath.EvalSymlinks(w.dir); terr == nil && !workdir.Within(top, real) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: errLinkLeavesFolder}
		}
	}
	return nil, err
}

func (w *workflowFolder) Close() error { return w.root.Close() }
