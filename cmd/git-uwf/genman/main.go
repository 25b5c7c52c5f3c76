// Command git-uwf-man writes the git-uwf(1) man page on stdout, or to the
// file -o names. `make man` runs it; it is a program of its own so that
// git-uwf does not carry the page's generator.
//
//	go run ./cmd/git-uwf/genman [-version VERSION] [-o FILE]
//
// The commands and global options come from the command tree git-uwf runs
// (root.App), the prose from cmd/git-uwf/internal/mangen.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/mangen"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
)

func main() {
	version := flag.String("version", "", "the version named in the page's footer (default: git-uwf's own)")
	out := flag.String("o", "", "write the page to `FILE` instead of stdout")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "git-uwf-man: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if *version == "" {
		*version = root.Version()
	}
	page, err := render(*version)
	if err == nil {
		if *out == "" {
			_, err = os.Stdout.Write(page)
		} else {
			err = os.WriteFile(*out, page, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "git-uwf-man: %v\n", err)
		os.Exit(1)
	}
}

// render writes the page for the command tree git-uwf runs.
func render(version string) ([]byte, error) {
	app := root.App(cmdutil.NewFactory(iostreams.System())) // described, never run
	var buf bytes.Buffer
	if err := mangen.Write(&buf, mangen.Page{Name: "git-uwf", Command: "git uwf", Version: version}, app); err != nil {
		return nil, fmt.Errorf("render man page: %w", err)
	}
	return buf.Bytes(), nil
}
