// Package chaintest has helpers for tests that need real git repositories
// holding git-uwf data: create a repository, open it, register a workflow,
// append steps directly (no agent), and check integrity at the end.
package chaintest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// GitEnv is the environment tests run git with: a fixed identity and no
// user or system configuration.
func GitEnv() []string {
	return append(os.Environ(),
		"GIT_AUTHOR_NAME=uwf test", "GIT_AUTHOR_EMAIL=test@uwf.invalid",
		"GIT_COMMITTER_NAME=uwf test", "GIT_COMMITTER_EMAIL=test@uwf.invalid",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
}

// Git runs git in dir and returns its trimmed output, failing the test on error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = GitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// InitRepo creates a repository with one commit on main in a temp dir.
func InitRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "config", "user.name", "uwf test")
	Git(t, dir, "config", "user.email", "test@uwf.invalid")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", "root")
	return dir
}

// Open opens dir as a chain.Repo.
func Open(t testing.TB, dir string) *chain.Repo {
	t.Helper()
	r, err := chain.Open(context.Background(), dir, chain.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	return r
}

// Workflow parses a workflow from YAML text (file name <name>.yaml).
func Workflow(t testing.TB, name, yamlText string) *moderator.Workflow {
	t.Helper()
	path := name + ".yaml"
	w, err := moderator.Load(fstest.MapFS{path: {Data: []byte(yamlText)}}, path)
	if err != nil {
		t.Fatalf("load workflow %s: %v", name, err)
	}
	return w
}

// Step appends a step to a thread without an agent: it writes the output
// and StepNode the way an agent would, then appends through the chain.
func Step(t testing.TB, r *chain.Repo, id chain.ThreadID, role string, output map[string]any, body string) *chain.Entry {
	t.Helper()
	e, err := TryStep(r, id, role, output, body)
	if err != nil {
		t.Fatalf("step %s on %s: %v", role, id, err)
	}
	return e
}

// TryStep is Step returning the error.
func TryStep(r *chain.Repo, id chain.ThreadID, role string, output map[string]any, body string) (*chain.Entry, error) {
	ctx := context.Background()
	th, err := r.Thread(ctx, id)
	if err != nil {
		return nil, err
	}
	ref, err := WriteStepNode(r, th, role, output, body)
	if err != nil {
		return nil, err
	}
	return r.AppendStep(ctx, th, ref, chain.AppendOptions{})
}

// WriteStepNode stores an output and a StepNode continuing th's head.
func WriteStepNode(r *chain.Repo, th *chain.Thread, role string, output map[string]any, body string) (objects.Ref, error) {
	out, err := r.Store.Put(th.Workflow.RoleSchemas[role], output)
	if err != nil {
		return objects.Ref{}, err
	}
	sn := chain.StepNode{Start: th.StartAlias, Prev: th.HeadStepAlias(), Role: role, Output: out.Alias,
		Agent: "test", EdgePrompt: "do it", StartedAtMs: 1700000000000, CompletedAtMs: 1700000001500, Cwd: "/"}
	if body != "" {
		b, err := r.Store.PutText(body)
		if err != nil {
			return objects.Ref{}, err
		}
		sn.Body = b.Alias
	}
	schema, err := r.Schema("uwf.StepNode")
	if err != nil {
		return objects.Ref{}, err
	}
	return r.Store.Put(schema, sn)
}

// Fsck runs git fsck --strict and checks that every object reachable from
// refs/uwf/* whose tree entry is named by an alias re-hashes to that alias.
func Fsck(t testing.TB, dir string) {
	t.Helper()
	Git(t, dir, "fsck", "--strict", "--no-progress")
	out := Git(t, dir, "for-each-ref", "--format=%(objectname)", "refs/uwf/")
	if out == "" {
		return
	}
	tips := strings.Fields(out)
	listing := Git(t, dir, append([]string{"ls-tree", "-r"}, tips...)...)
	want := map[string]string{} // blob oid → alias its entry names
	var order []string
	for _, line := range strings.Split(listing, "\n") {
		meta, path, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		name := filepath.Base(path)
		if len(f) != 3 || f[1] != "blob" || !objects.IsAlias(name) {
			continue
		}
		if _, dup := want[f[2]]; !dup {
			order = append(order, f[2])
		}
		want[f[2]] = name
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = dir
	cmd.Env = GitEnv()
	cmd.Stdin = strings.NewReader(strings.Join(order, "\n") + "\n")
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	for _, oid := range order {
		// "<oid> blob <size>\n<content>\n"
		nl := bytes.IndexByte(raw, '\n')
		var size int
		if _, err := fmt.Sscanf(string(raw[:nl]), oid+" blob %d", &size); err != nil {
			t.Fatalf("cat-file header %q: %v", raw[:nl], err)
		}
		content := raw[nl+1 : nl+1+size]
		raw = raw[nl+2+size:]
		if got := objects.AliasOf(content); string(got) != want[oid] {
			t.Errorf("tree entry %s points at blob %s whose alias is %s", want[oid], oid, got)
		}
	}
}
