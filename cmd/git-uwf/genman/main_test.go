package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/root"
)

// TestEveryCommandIsOnThePage walks the command tree git-uwf runs: a
// command registered in root.Commands must appear on the page without
// anyone editing the generator.
func TestEveryCommandIsOnThePage(t *testing.T) {
	page, err := render("v9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(page), `\-`, "-")
	ios, _, _, _ := iostreams.Test()
	var paths []string
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			p := prefix + " " + c.Name
			paths = append(paths, p)
			walk(p, c.Subcommands)
		}
	}
	walk("git uwf", root.App(cmdutil.NewFactory(ios)).Commands)
	if len(paths) < 10 {
		t.Fatalf("only %d commands found in the app: %v", len(paths), paths)
	}
	for _, p := range paths {
		if !strings.Contains(text, `\fB`+p+`\fR`) && !strings.Contains(text, `.SS "`+p+`"`) {
			t.Errorf("the page does not describe %q", p)
		}
	}
	for _, w := range []string{`.TH GIT-UWF 1 "" "git-uwf v9.9.9"`, `.SH "EXAMPLES"`, `.SH "EXIT STATUS"`} {
		if !strings.Contains(text, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

// TestTroffReadsThePage runs the page through groff's warnings, when groff
// is installed: an unescaped character or a bad request fails here.
func TestTroffReadsThePage(t *testing.T) {
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff not installed")
	}
	page, err := render("v9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(groff, "-man", "-ww", "-z")
	cmd.Stdin = bytes.NewReader(page)
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("groff: %v\n%s", err, out)
	}
}
