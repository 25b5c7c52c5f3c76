package cmdutil

import (
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
)

// OneArg returns a command's single positional argument, trimmed, or a
// usage error naming what was expected.
func OneArg(c *cli.Context, what string) (string, error) {
	switch c.NArg() {
	case 1:
		arg := strings.TrimSpace(c.Args().First())
		if arg == "" {
			return "", FlagErrorf("empty %s", what)
		}
		return arg, nil
	case 0:
		return "", FlagErrorf("missing %s", what)
	default:
		return "", FlagErrorf("expected one %s, got %d arguments", what, c.NArg())
	}
}

// NoArgs rejects positional arguments.
func NoArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return FlagErrorf("unexpected argument %q", c.Args().First())
	}
	return nil
}

// AbsPath resolves path against the command's working directory (which
// honours -C), never against the process's.
func AbsPath(getwd func() (string, error), path string) (string, error) {
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	wd, err := getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, path), nil
}

// OneArgAndFormat is OneArg and then FormatOf, what most commands that
// take one argument start with.
func OneArgAndFormat(c *cli.Context, what string) (string, Format, error) {
	arg, err := OneArg(c, what)
	if err != nil {
		return "", "", err
	}
	format, err := FormatOf(c)
	if err != nil {
		return "", "", err
	}
	return arg, format, nil
}
