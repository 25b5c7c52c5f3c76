package cmdutil

import (
	"context"

	"github.com/git-uwf/git-uwf/config"
)

// ConfigPaths returns the configuration files that apply in the directory
// f works in, and whether that directory is inside a repository (outside
// one, only the user file applies).
func (f *Factory) ConfigPaths(ctx context.Context) (config.Paths, bool, error) {
	wd, err := f.Getwd()
	if err != nil {
		return config.Paths{}, false, err
	}
	paths, repo, err := config.DiscoverPaths(ctx, wd, f.Getenv)
	return paths, repo != nil, err
}

// LoadConfig reads the configuration that applies in the directory f
// works in, and returns that directory too.
func (f *Factory) LoadConfig(ctx context.Context) (*config.Config, string, error) {
	wd, err := f.Getwd()
	if err != nil {
		return nil, "", err
	}
	cfg, err := config.LoadDir(ctx, wd, f.Getenv)
	return cfg, wd, err
}
