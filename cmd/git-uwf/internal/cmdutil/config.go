package cmdutil

import (
	"context"

	"github.com/git-uwf/git-uwf/config"
)

// ConfigPaths returns the configuration files that apply in the directory
// f works in, and whether that directory is inside a repository (outside
// one, only the user file applies).
func ConfigPaths(ctx context.Context, f *Factory) (config.Paths, bool, error) {
	wd, err := f.Getwd()
	if err != nil {
		return config.Paths{}, false, err
	}
	paths, repo, err := config.DiscoverPaths(ctx, wd, f.Getenv)
	return paths, repo != nil, err
}
