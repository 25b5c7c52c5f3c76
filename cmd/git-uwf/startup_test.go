package main_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Start-up work is what every command pays before it does anything: package
// initialisation of git-uwf and of everything it links. Its time is measured
// by the bench (`go run ./bench -only start`); this test guards it with what
// does not vary with the machine's load — which packages are linked and how
// much their initialisation allocates — so that work creeping back fails
// loudly here rather than as a slower figure weeks later.

// notLinked are packages git-uwf must not link: an import path, or every
// package below it when it ends in "/".
var notLinked = map[string]string{
	"github.com/cpuguy83/go-md2man/v2/md2man":      "man page rendering belongs to cmd/git-uwf/genman (build with the Makefile's GOTAGS)",
	"github.com/russross/blackfriday/v2":           "markdown for man pages: cmd/git-uwf/genman only",
	"github.com/cloudflare/circl/":                 "the curves of OpenPGP; see github.com/ProtonMail/go-crypto/",
	"github.com/yuin/goldmark":                     "see github.com/yuin/goldmark/",
	"github.com/yuin/goldmark/":                    "markdown for the web viewer, which is git-uwf-serve's (cmd/git-uwf-serve); git uwf serve runs that program",
	"github.com/git-uwf/git-uwf/web":               "the web viewer is git-uwf-serve's; git uwf serve runs that program (package serveexec)",
	"github.com/git-uwf/git-uwf/cmd/git-uwf/serve": "the viewer's command is git-uwf-serve's; git-uwf's serve is package serveexec",
	"github.com/santhosh-tekuri/jsonschema/":       "compiles every draft's meta-schema at init (1.70 MB, ~10 ms); internal/jsonschema is the validator, v6 only its tests' oracle",
	"golang.org/x/text/message":                    "v6's message printer; internal/jsonschema formats its messages itself",
	"net/http":                                     "the HTTP client is git-uwf-llm's (cmd/git-uwf-llm, package internal/llmhttp); git-uwf sends model requests through it (package internal/llmwire)",
	"crypto/tls":                                   "TLS comes with net/http: see net/http",
	"crypto/x509":                                  "certificates come with net/http: see net/http",
	"github.com/git-uwf/git-uwf/internal/llmhttp":  "it links net/http: git-uwf runs git-uwf-llm, which carries it",
}

// objectLibraries are packages neither git-uwf nor git-uwf-serve may link:
// git's object ids, types, commits and trees are internal/gitobj's, the
// object database is objects.DB. go-git stays a test oracle only.
var objectLibraries = map[string]string{
	"github.com/go-git/":               "go-git, billy and gcfg: their initialisation (regexps, gob, CPU probing, OpenPGP) ran in every process; use internal/gitobj and objects.DB",
	"github.com/pjbgf/sha1cd":          "see github.com/pjbgf/sha1cd/",
	"github.com/pjbgf/sha1cd/":         "go-git's collision-detecting SHA-1; object ids are crypto/sha1's (internal/gitobj)",
	"github.com/klauspost/cpuid/":      "CPU feature probing at init (CPUID traps to the hypervisor in a VM); pulled by sha1cd",
	"encoding/gob":                     "registers types at init; pulled by go-git's config (gcfg)",
	"github.com/ProtonMail/go-crypto/": "OpenPGP (its curve tables are built at init); git-uwf neither signs nor verifies commits",
}

// doors are the dependencies whose initialisation is heavy and which only
// one git-uwf package may import, so that replacing or dropping one (see
// docs/performance.md, start-up) stays a change to that package alone: a
// module path (every package below it counts) and the package.
var doors = map[string]string{
	"github.com/yuin/goldmark":      "github.com/git-uwf/git-uwf/web",
	"github.com/klauspost/compress": "github.com/git-uwf/git-uwf/objects",
}

// initBudget is the most a dependency's initialisation may allocate, for the
// few whose initialisation is known to be heavy and cannot be avoided
// (jsonschema/v6 was replaced and goldmark moved to git-uwf-serve).
var initBudget = map[string]struct {
	bytes, allocs int
	why           string
}{
	"github.com/klauspost/compress/flate": {48 << 10, 32, "its compressor's fixed tables (42 KB, 0.15 ms) come with the inflater " +
		"objects.ObjectReader reads packs with (a cold listing reads four to five objects a thread; docs/performance.md, cold list) " +
		"and the stateless compressor objects.DB writes loose objects with"},
}

// Budgets for every other package's initialisation.
const (
	ownInitBytes, ownInitAllocs = 1 << 10, 24   // github.com/git-uwf/…: build it on first use (the most: moderator, 824 bytes and 18 allocations of sync.OnceValue)
	depInitBytes, depInitAllocs = 32 << 10, 400 // any other dependency (the largest: yaml.v2 27 KB, gob 356 allocs)
	totalInitBytes              = 1 << 20       // every package: 0.77 MB with goldmark, less without
)

var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

func TestStartupWork(t *testing.T) {
	tags := makefileTags(t)
	out, err := exec.Command("go", "list", "-tags", tags, "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var deps []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		deps = append(deps, f[0])
		if !strings.HasPrefix(f[0], "github.com/git-uwf/") {
			continue
		}
		for _, imp := range f[1:] {
			for mod, door := range doors {
				if (imp == mod || strings.HasPrefix(imp, mod+"/")) && f[0] != door {
					t.Errorf("%s imports %s: only %s may (its initialisation is heavy; keep it behind one package)", f[0], imp, door)
				}
			}
		}
	}
	checkNotLinked(t, "git-uwf", deps, notLinked)
	checkNotLinked(t, "git-uwf", deps, objectLibraries)
	checkNoMapLiterals(t, tags)
	out, err = exec.Command("go", "list", "-tags", tags, "-deps", "../git-uwf-serve").Output()
	if err != nil {
		t.Fatalf("go list -deps ../git-uwf-serve: %v", err)
	}
	checkNotLinked(t, "git-uwf-serve", strings.Fields(string(out)), objectLibraries)

	bin := filepath.Join(t.TempDir(), "git-uwf")
	build := exec.Command("go", "build", "-tags", tags, "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "version")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git-uwf version: %v\n%s", err, stderr.String())
	}

	var total, own int
	for _, l := range strings.Split(stderr.String(), "\n") {
		m := initLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		pkg := strings.ReplaceAll(m[1], "%2e", ".")
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		total += b
		maxB, maxA, why := depInitBytes, depInitAllocs, "a dependency's initialisation this heavy needs a reason in initBudget"
		switch budget, ok := initBudget[pkg]; {
		case strings.HasPrefix(pkg, "github.com/git-uwf/"):
			own++
			maxB, maxA, why = ownInitBytes, ownInitAllocs, "build package-level values (regexps, tables, schemas) on first use"
		case ok:
			maxB, maxA, why = budget.bytes, budget.allocs, budget.why
		}
		if b > maxB || a > maxA {
			t.Errorf("init %s allocates %d bytes in %d allocations (budget %d bytes, %d allocations): %s", pkg, b, a, maxB, maxA, why)
		}
	}
	if own == 0 {
		t.Fatalf("no init line of a git-uwf package in GODEBUG=inittrace=1 output:\n%s", stderr.String())
	}
	if total > totalInitBytes {
		t.Errorf("package initialisation allocates %d bytes in all, budget %d", total, totalInitBytes)
	}
}

// checkNoMapLiterals reports every map literal assigned to a package-level
// variable in the module's packages that git-uwf links: Go builds such a
// map before main, in every process. A switch, or a map built on first use
// (sync.OnceValue), costs nothing until it is needed.
func checkNoMapLiterals(t *testing.T, tags string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-tags", tags, "-deps", "-f", `{{if not .Standard}}{{.ImportPath}}{{range .GoFiles}} {{$.Dir}}/{{.}}{{end}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	fset := token.NewFileSet()
	files := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || !strings.HasPrefix(f[0], "github.com/git-uwf/") {
			continue
		}
		for _, name := range f[1:] {
			file, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, decl := range file.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, spec := range gd.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						if lit, ok := v.(*ast.CompositeLit); ok {
							if _, isMap := lit.Type.(*ast.MapType); isMap {
								t.Errorf("%s: a map literal at package level is built at every process start: use a switch, or build it on first use", fset.Position(lit.Pos()))
							}
						}
					}
				}
			}
		}
	}
	if files == 0 {
		t.Fatalf("go list -deps listed no Go file of the module:\n%s", out)
	}
}

// checkNotLinked reports each package of notLinked (an import path, or a
// prefix ending in "/") that deps, the packages bin links, holds.
func checkNotLinked(t *testing.T, bin string, deps []string, notLinked map[string]string) {
	t.Helper()
	for pkg, why := range notLinked {
		for _, dep := range deps {
			if dep == pkg || strings.HasSuffix(pkg, "/") && strings.HasPrefix(dep, pkg) {
				t.Errorf("%s links %s: %s", bin, dep, why)
				break
			}
		}
	}
}

// makefileTags returns the build tags `make build` uses (GOTAGS), and
// checks that the build rule passes them and builds without cgo.
func makefileTags(t *testing.T) string {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var tags string
	for _, l := range strings.Split(string(mk), "\n") {
		if v, ok := strings.CutPrefix(l, "GOTAGS"); ok {
			if v, ok = strings.CutPrefix(strings.TrimSpace(v), ":="); ok {
				tags = strings.TrimSpace(v)
			}
		}
	}
	if !strings.Contains(tags, "urfave_cli_no_docs") {
		t.Fatalf("Makefile: GOTAGS = %q, want urfave_cli_no_docs (it keeps go-md2man out of git-uwf)", tags)
	}
	if !strings.Contains(string(mk), "-tags '$(GOTAGS)'") {
		t.Fatal("Makefile: the build rule does not pass -tags '$(GOTAGS)'")
	}
	// A static binary starts without the dynamic loader and libc.
	if !strings.Contains(string(mk), "\nCGO     := 0\n") || !strings.Contains(string(mk), "\tCGO_ENABLED=$(CGO) $(GO) build") {
		t.Fatal("Makefile: the build rule does not build with CGO_ENABLED=0 (CGO := 0)")
	}
	return tags
}

// TestLLMProgramLinks: git-uwf-llm, which sends git-uwf's requests to
// model servers, links the standard library and its own HTTP packages only
// (internal/llmhttp, internal/llmwire, internal/text, and
// internal/lockedexec, which llmwire starts it with): none of git-uwf's
// commands, repository or agent code, whose initialisation it would pay
// at every request.
func TestLLMProgramLinks(t *testing.T) {
	const module = "github.com/git-uwf/git-uwf/"
	checkProgramLinks(t, "../git-uwf-llm",
		[]string{module + "cmd/git-uwf-llm", module + "internal/llmhttp", module + "internal/llmwire", module + "internal/lockedexec", module + "internal/text"},
		"net/http")
}

// TestSupervisorProgramLinks: git-uwf-agent-supervisor, which starts beside
// every agent git-uwf spawns, links the standard library and package
// agentkit/supervisor only, so that it starts in about the time of any
// process (docs/architecture.md, "Why a second binary").
func TestSupervisorProgramLinks(t *testing.T) {
	const module = "github.com/git-uwf/git-uwf/"
	checkProgramLinks(t, "../git-uwf-agent-supervisor",
		[]string{module + "cmd/git-uwf-agent-supervisor", module + "agentkit/supervisor"},
		"os/exec")
}

// checkProgramLinks checks that the program in dir links the standard
// library and the module's packages own only, and that it does link each
// of own and of the standard packages std (so that a go list that lists
// less than it should cannot pass).
func checkProgramLinks(t *testing.T, dir string, own []string, std ...string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-tags", makefileTags(t), "-deps", "-f", "{{.ImportPath}} {{.Standard}}", dir).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", dir, err)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, standard, _ := strings.Cut(l, " ")
		seen[pkg] = true
		if standard != "true" && !slices.Contains(own, pkg) {
			t.Errorf("%s links %s: it may link the standard library and %s only", dir, pkg, strings.Join(own, ", "))
		}
	}
	for _, pkg := range slices.Concat(own, std) {
		if !seen[pkg] {
			t.Errorf("go list -deps %s does not list %s:\n%s", dir, pkg, out)
		}
	}
}
