package uwfsync

import (
	"context"
	"maps"
	"testing"

	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// TestReadRefsWithGit: git cat-file answers what the ref files answer,
// for any number of names, none included (readRefs asks git for every
// name when the ref backend is not files, whatever their number).
func TestReadRefsWithGit(t *testing.T) {
	ctx := context.Background()
	dir := chaintest.InitRepo(t)
	head := chaintest.Git(t, dir, "rev-parse", "HEAD")
	chaintest.Git(t, dir, "update-ref", "refs/uwf/threads/A", head)
	chaintest.Git(t, dir, "update-ref", "refs/uwf/threads/B", head)
	repo := chaintest.Open(t, dir)
	for _, tt := range []struct {
		name  string
		names []string
	}{
		{"none", nil},
		{"one", []string{"refs/uwf/threads/A"}},
		{"missing", []string{"refs/uwf/threads/missing"}},
		{"several", []string{"refs/uwf/threads/B", "refs/uwf/threads/missing", "refs/uwf/threads/A"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, ok, err := repo.RefFiles().Refs(tt.names)
			if err != nil || !ok {
				t.Fatalf("RefFiles.Refs(%q) = %v, %v, %v", tt.names, want, ok, err)
			}
			got, err := readRefsWithGit(ctx, repo.Git, tt.names)
			if err != nil {
				t.Fatalf("readRefsWithGit(%q): %v", tt.names, err)
			}
			if !maps.Equal(got, want) {
				t.Errorf("readRefsWithGit(%q) = %v; the ref files say %v", tt.names, got, want)
			}
		})
	}
}
