package cmdutil_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/moderator"
)

const includingWorkflow = `name: wf
roles:
  worker:
    goal: !include %s
    frontmatter:
      type: object
      properties: {$status: {const: done}}
      required: [$status]
graph:
  $START:
    _: {role: worker, prompt: "Work."}
  worker:
    done: {role: $END, prompt: "Done."}
`

// TestIncludeLinksStayInTheFolder: an include may be a symbolic link only
// when it resolves inside the workflow's folder; the outside file's text
// never reaches the loaded workflow.
func TestIncludeLinksStayInTheFolder(t *testing.T) {
	base := t.TempDir()
	folder := filepath.Join(base, "wf")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(folder, "parts"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(folder, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.md"), "SECRET-OUTSIDE")
	write(filepath.Join(folder, "goal.md"), "Inside goal.")
	write(filepath.Join(folder, "parts", "nested.yaml"), "!include leak.md\n")
	link("../outside/secret.md", "relative-out.md")
	link(filepath.Join(outside, "secret.md"), "absolute-out.md")
	link(outside, "outdir")
	link("goal.md", "inside.md")
	link("../goal.md", "parts/up-but-inside.md")
	link("../../outside/secret.md", "parts/leak.md")
	cases := []struct {
		include string
		refused bool
	}{
		{"goal.md", false},
		{"inside.md", false},
		{"parts/up-but-inside.md", false},
		{"relative-out.md", true},
		{"absolute-out.md", true},
		{"outdir/secret.md", true},
		{"parts/nested.yaml", true},
	}
	for _, c := range cases {
		t.Run(c.include, func(t *testing.T) {
			path := filepath.Join(folder, "wf.yaml")
			write(path, strings.Replace(includingWorkflow, "%s", c.include, 1))
			w, err := moderator.LoadFile(path)
			if !c.refused {
				if err != nil || w.Roles["worker"].Goal != "Inside goal." {
					t.Fatalf("load: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("loaded, goal %q", w.Roles["worker"].Goal)
			}
			if !strings.Contains(err.Error(), "symbolic link that leads out of the workflow folder") {
				t.Errorf("error does not say why: %v", err)
			}
			if strings.Contains(err.Error(), "SECRET-OUTSIDE") {
				t.Errorf("the error quotes the outside file: %v", err)
			}
		})
	}
}
