package cmdutil

import (
	"os"
	"path/filepath"

	"github.com/git-uwf/git-uwf/internal/llmwire"
)

// Companion looks for the program name installed beside git-uwf: in the
// directory of the running executable as executable reports it, symbolic
// links resolved. path is that file when it is a regular file someone may
// execute, else ""; looked is the file looked at, "" when the executable
// could not be found. Only where git-uwf is installed decides, never the
// repository, its configuration or PATH; a caller that also accepts a
// program on PATH looks there itself.
func Companion(executable func() (string, error), name string) (path, looked string) {
	exe, err := executable()
	if err != nil {
		return "", ""
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", ""
	}
	looked = filepath.Join(filepath.Dir(exe), name)
	if fi, err := os.Stat(looked); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
		return looked, looked
	}
	return "", looked
}

// LLMProgram returns where git-uwf-llm, the program that sends git-uwf's
// requests to model servers (package llmwire), is installed: beside the
// running executable, as Companion looks. It is returned whether or not
// the file is there, so that running it names the place in its error;
// "" when the executable could not be found.
func LLMProgram(executable func() (string, error)) string {
	_, looked := Companion(executable, llmwire.Program)
	return looked
}
