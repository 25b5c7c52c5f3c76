package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Head is what a work tree has checked out.
type Head struct {
	// Branch is the short branch name ("" for a detached HEAD).
	Branch string
	// Commit is the checked-out commit ("" on an unborn branch).
	Commit string
}

// HeadOf reads the HEAD of a repository: from the files when it can (a
// symbolic ref to a branch in the files backend, or a detached oid), else
// with git.
func HeadOf(ctx context.Context, repo *Repo) (Head, error) {
	return HeadWith(ctx, repo, nil)
}

// HeadWith is HeadOf reading the branch through files, the process's
// shared reader of repo's ref files (nil for none, or when files reads
// another common dir), so packed-refs is not parsed again.
func HeadWith(ctx context.Context, repo *Repo, files *RefFiles) (Head, error) {
	if files != nil && filepath.Clean(files.common) != filepath.Clean(repo.CommonDir) {
		files = nil
	}
	data, err := os.ReadFile(filepath.Join(repo.GitDir, "HEAD"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Head{}, fmt.Errorf("read HEAD: %w", err)
	}
	s := strings.TrimSpace(string(data))
	if name, ok := strings.CutPrefix(s, "ref: "); ok && strings.HasPrefix(name, "refs/heads/") {
		h := Head{Branch: strings.TrimPrefix(name, "refs/heads/")}
		read := func() (string, bool, error) { return ReadRef(repo.CommonDir, name) }
		if files != nil {
			read = func() (string, bool, error) { return files.Ref(name) }
		}
		if oid, found, err := read(); err == nil && isFilesBackend(repo.CommonDir) {
			// Not found (loose or packed) is an unborn branch.
			if found {
				h.Commit = oid
			}
			return h, nil
		}
	} else if len(s) >= 40 && isHexString(s) {
		return Head{Commit: s}, nil
	}
	// Anything else (reftable, packed refs git must read): ask git.
	r, err := repo.Runner(repo.WorkTree)
	if err != nil {
		return Head{}, err
	}
	var h Head
	if out, err := r.Output(ctx, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
		h.Branch = strings.TrimSpace(out)
	}
	if out, err := r.Output(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}"); err == nil {
		h.Commit = strings.TrimSpace(out)
	}
	return h, nil
}

func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}
