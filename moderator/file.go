package moderator

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-uwf/git-uwf/internal/workdir"
)

// ProjectDir is where a project keeps its workflow files, relative to
// any directory from the working directory up to the work tree top.
const ProjectDir = ".uwf/workflows"

// LoadFile loads and validates a workflow file from disk. Includes
// resolve inside the file's directory and cannot leave it, not even
// through a symbolic link.
func LoadFile(path string) (*Workflow, error) {
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
	w, err := Parse(fsys, base, data)
	if err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("workflow %s is invalid:\n%w", path, err)
		}
		return nil, fmt.Errorf("load workflow %s: %w", path, err)
	}
	return w, nil
}

// FindFile looks for <name>.yaml|yml (or <name>/index.yaml) in
// .uwf/workflows/ of dir and its parents, up to stop (the repository top).
func FindFile(dir, stop, name string) (string, bool) {
	for {
		for _, cand := range []string{name + ".yaml", name + ".yml", filepath.Join(name, "index.yaml")} {
			p := filepath.Join(dir, ProjectDir, cand)
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
