package root

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// version is set only at link time:
//
//	go build -ldflags "-X github.com/git-uwf/git-uwf/cmd/git-uwf/root.version=v1.2.3"
var version string

// Version returns the git-uwf version: the one set at link time, else the
// main module's version from the build information ("(devel)" in a checkout).
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// versionInfo is the machine-readable output of `git uwf version`.
type versionInfo struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

// VersionOptions are the inputs of `version`.
type VersionOptions struct {
	IO     *iostreams.IOStreams
	Format cmdutil.Format
}

func newCmdVersion(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "Print the git-uwf version",
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return cmdutil.FlagErrorf("version takes no arguments")
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return versionRun(&VersionOptions{IO: f.IO, Format: format})
		},
	}
}

func versionRun(opts *VersionOptions) error {
	info := versionInfo{Version: Version(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	return cmdutil.Print(opts.IO, opts.Format, info, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "git-uwf version %s\n", info.Version)
		return err
	})
}
