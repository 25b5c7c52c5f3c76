package agentkit

import (
	"path/filepath"
	"strings"

	"github.com/git-uwf/git-uwf/internal/workdir"
)

// EnvInvocationDir is the directory the user ran git-uwf in. The engine
// sets it for every agent: a relative command or file an agent was given
// on the user's command line or in the user's configuration (a pipe
// command, a mock script) resolves against it, not against the step's
// working directory, which comes from thread data.
const EnvInvocationDir = "UWF_INVOCATION_DIR"

// ResolveCommand returns cmd made absolute against dir when it is a
// relative path (it contains a slash); a bare program name is left for
// the PATH lookup, an absolute path as it is.
func ResolveCommand(cmd, dir string) string {
	if dir == "" || !strings.ContainsRune(cmd, '/') || filepath.IsAbs(cmd) {
		return cmd
	}
	return filepath.Join(dir, filepath.FromSlash(cmd))
}

// InvocationDir returns the directory relative commands and files resolve
// against: $UWF_INVOCATION_DIR when the engine set it, else fallback (the
// agent's own working directory, when it was run by hand).
func InvocationDir(getenv func(string) string, fallback string) string {
	if d := getenv(EnvInvocationDir); d != "" && filepath.IsAbs(d) {
		return d
	}
	return fallback
}

// RecordedCwd is the step's working directory as its StepNode records it:
// relative to the top of the work tree (slash-separated, "." for the top),
// so that the thread means the same directory in every clone; the absolute
// path only for a directory outside the work tree (a bare repository, or
// a step the user allowed to run outside it).
func (s *Session) RecordedCwd() string {
	if s.Repo != nil && s.Repo.Info != nil {
		if rel, ok := workdir.Relative(s.Repo.Info.WorkTree, s.Cwd); ok {
			return rel
		}
	}
	return s.Cwd
}
