package engine

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
)

// edgePromptEnv writes the edge prompt to a file under the git dir's
// uwf/tmp area and returns the protocol variables that carry it: the file,
// always, and UWF_EDGE_PROMPT, whole when it fits an environment variable
// and cleaned and shortened when it does not (a NUL byte, invalid UTF-8
// or a megabyte of text rendered from an earlier output must never keep
// an agent from starting). remove deletes the file; call it when the step
// is over.
func edgePromptEnv(uwfDir string, id chain.ThreadID, prompt string) (env []string, remove func(), err error) {
	dir := filepath.Join(uwfDir, "tmp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("edge prompt file: %w", err)
	}
	// The caller holds the thread's lock: a file of this thread that is
	// still there was left by a step process that was killed.
	pattern := "edge-prompt-" + string(id) + "-*.txt"
	if stale, _ := filepath.Glob(filepath.Join(dir, pattern)); len(stale) > 0 {
		for _, p := range stale {
			_ = os.Remove(p)
		}
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, nil, fmt.Errorf("edge prompt file: %w", err)
	}
	path := f.Name()
	remove = func() { _ = os.Remove(path) }
	if _, err := f.WriteString(prompt); err != nil {
		f.Close()
		remove()
		return nil, nil, fmt.Errorf("write edge prompt file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		remove()
		return nil, nil, fmt.Errorf("write edge prompt file %s: %w", path, err)
	}
	env = []string{
		agentkit.EnvEdgePromptFile + "=" + path,
		agentkit.EnvEdgePrompt + "=" + agentkit.EdgePromptForEnv(prompt),
	}
	return env, remove, nil
}
