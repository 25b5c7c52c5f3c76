package gitrepo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-uwf/git-uwf/internal/atomicfile"
)

// Version returns the output of `git version`.
//
// With VersionFile set, the answer is kept in that file between
// processes, next to the path, size and modification time of the git
// executable it came from: later calls read it instead of starting git, as
// long as the executable is the same. A file that is missing, damaged or
// about another executable is replaced. Keeping the file is best effort: a
// failure to write it is not an error.
func (r *Runner) Version(ctx context.Context) (string, error) {
	key, keyed := r.versionKey()
	if keyed {
		if b, err := os.ReadFile(r.VersionFile); err == nil {
			if k, v, ok := strings.Cut(string(b), "\n"); ok && k == key {
				if v = strings.TrimSuffix(v, "\n"); strings.HasPrefix(v, "git version ") && !strings.Contains(v, "\n") {
					return v, nil
				}
			}
		}
	}
	v, err := r.Output(ctx, "version")
	if err != nil {
		return "", err
	}
	if keyed && strings.HasPrefix(v, "git version ") && !strings.Contains(v, "\n") {
		if os.MkdirAll(filepath.Dir(r.VersionFile), 0o755) == nil {
			_ = atomicfile.Write(r.VersionFile, []byte(key+"\n"+v+"\n"), 0o644)
		}
	}
	return v, nil
}

// versionKey names the git executable as VersionFile records it: false
// when there is no VersionFile or the executable cannot be looked at.
func (r *Runner) versionKey() (string, bool) {
	if r.VersionFile == "" {
		return "", false
	}
	fi, err := os.Stat(r.Path)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%s %d %d", strconv.Quote(r.Path), fi.Size(), fi.ModTime().UnixNano()), true
}
