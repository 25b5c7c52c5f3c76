package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const inprocWorkflow = `name: linear
roles:
  planner:
    frontmatter:
      type: object
      properties: {$status: {const: ready}, plan: {type: string}}
      required: [$status, plan]
  worker:
    frontmatter:
      type: object
      properties: {$status: {const: done}, summary: {type: string}}
      required: [$status, summary]
graph:
  $START:
    _: {role: planner, prompt: "Plan it."}
  planner:
    ready: {role: worker, prompt: "Do: {{plan}}"}
  worker:
    done: {role: $END, prompt: "Finished."}
`

const inprocScript = `steps:
  - role: planner
    output: |
      ---
      $status: ready
      plan: write the code
      token: sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789
      ---
      A plan.
`

// TestBuiltinAgentInProcess: `thread step` with the built-in mock agent
// writes the same step whether the agent runs inside the engine's process
// (the default) or as a process of its own (UWF_SPAWN_AGENTS=1): the same
// tree and commit message, up to the StepNode's timestamps.
func TestBuiltinAgentInProcess(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "UWF_SPAWN_AGENTS=",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@uwf.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@uwf.invalid",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	run := func(extra []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(slices.Clone(env), extra...)
		out, err := cmd.Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr)
		}
		return strings.TrimSpace(string(out))
	}
	for name, content := range map[string]string{"linear.yaml": inprocWorkflow, "mock.yaml": inprocScript} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(nil, "git", "init", "-q")
	run(nil, gitUwfBin, "workflow", "put", "linear.yaml")
	run(nil, gitUwfBin, "thread", "start", "linear", "-p", "Ship it")
	ref := run(nil, "git", "for-each-ref", "--format=%(refname)", "refs/uwf/threads/")
	id := strings.TrimPrefix(ref, "refs/uwf/threads/")
	start := run(nil, "git", "rev-parse", ref)

	step := func(extra ...string) (tree []string, msg string) {
		t.Helper()
		run(extra, gitUwfBin, "thread", "step", id, "--agent", "git-uwf agent mock --script mock.yaml")
		node := run(nil, "git", "rev-parse", ref+":node")
		for _, line := range strings.Split(run(nil, "git", "ls-tree", "-r", ref), "\n") {
			if !strings.Contains(line, node) {
				tree = append(tree, line)
			}
		}
		for _, line := range strings.Split(run(nil, "git", "log", "-1", "--format=%B", ref), "\n") {
			if !strings.HasPrefix(line, "Uwf-Node: ") {
				msg += line + "\n"
			}
		}
		return tree, msg
	}
	spawnedTree, spawnedMsg := step("UWF_SPAWN_AGENTS=1")
	run(nil, "git", "update-ref", ref, start)
	tree, msg := step()
	if !slices.Equal(tree, spawnedTree) {
		t.Errorf("tree in-process:\n%s\nspawned:\n%s", strings.Join(tree, "\n"), strings.Join(spawnedTree, "\n"))
	}
	if msg != spawnedMsg {
		t.Errorf("message in-process:\n%s\nspawned:\n%s", msg, spawnedMsg)
	}
	if out := run(nil, "git", "show", ref+":output.yaml"); strings.Contains(out, "abcdefghijklmnop") || !strings.Contains(out, "write the code") {
		t.Errorf("output.yaml (the secret must be redacted):\n%s", out)
	}
	run(nil, "git", "fsck", "--strict", "--no-dangling")
}
