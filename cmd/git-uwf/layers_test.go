package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// layers ranks the module's packages as docs/architecture.md draws them:
// a package may import packages of its own rank or a lower one, never a
// higher one. The first entry that is the package or its parent folder
// (relative to the module) gives its rank; the table is checked against
// every package of the module, so a new top-level package must be placed here.
var layers = []struct {
	path string
	rank int
}{
	{"internal", 0},                     // ground floor: git, files, schema, paths, logs, fakes
	{"objects", 1},                      // model
	{"moderator", 1},                    //
	{"chain", 1},                        //
	{"graph/threadgraph", 3},            // reads threads: application
	{"graph", 1},                        //
	{"agentkit", 2},                     // agent kit
	{"builtins", 3},                     // application
	{"config", 3},                       //
	{"engine", 3},                       //
	{"uwfsync", 3},                      //
	{"review", 3},                       //
	{"web", 3},                          //
	{"bench", 4},                        // measures everything below the commands
	{"test", 4},                         //
	{"cmd/git-uwf-serve", 5},            // the web viewer's program: the serve command alone
	{"cmd/git-uwf-agent-supervisor", 5}, // the agent supervisor's program: agentkit/supervisor alone
	{"cmd/git-uwf-llm", 5},              // the model servers' HTTP client: internal/llmhttp alone
	{"cmd", 5},                          // commands
}

// model packages, which the ground floor must never import.
var domain = []string{"agentkit", "chain", "moderator", "objects"}

func rankOf(rel string) (int, bool) {
	for _, l := range layers {
		if rel == l.path || strings.HasPrefix(rel, l.path+"/") {
			return l.rank, true
		}
	}
	return 0, false
}

// TestLayers keeps imports running downward: no package imports one of a
// higher layer, and nothing under internal/ imports the domain.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/git-uwf/git-uwf/"
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	seen := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(fields[0], module)
		from, ok := rankOf(pkg)
		if !ok {
			t.Errorf("package %s has no layer: place it in the layers table (and in docs/architecture.md)", pkg)
			continue
		}
		seen++
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			to, ok := rankOf(dep)
			if !ok {
				continue // reported as a package of its own
			}
			if to > from {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must run downward", pkg, from, dep, to)
			}
			if strings.HasPrefix(pkg, "internal/") {
				for _, d := range domain {
					if dep == d || strings.HasPrefix(dep, d+"/") {
						t.Errorf("%s is ground floor but imports %s", pkg, dep)
					}
				}
			}
		}
	}
	if seen < 20 {
		t.Fatalf("go list reported %d packages; expected the whole module", seen)
	}
}
