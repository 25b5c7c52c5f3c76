package engine

import (
	"context"
	"io"

	"github.com/git-uwf/git-uwf/chain"
)

// InProcess runs some agent command lines inside this process instead of
// spawning them: the built-in agents of this very program, which would
// otherwise pay for a second process start and a second repository
// discovery. The command layer provides it; the engine knows nothing of
// the commands.
type InProcess interface {
	// Agent returns the in-process agent for args, the command line after
	// the program name ("agent", "mock", "--script", …, without the thread
	// id and role), or nil when that command must be spawned.
	Agent(args []string) InProcessAgent
}

// InProcessAgent runs one protocol request inside this process and returns
// its exit status, as the spawned command would.
type InProcessAgent func(ctx context.Context, call AgentCall) int

// AgentCall is everything a spawned agent would get from its process:
// arguments (the thread id and role last), environment, working
// directory, standard output and error; plus the repository the engine
// already opened, in place of a second discovery. Stdin is empty.
type AgentCall struct {
	Args   []string
	Env    []string
	Dir    string
	Repo   *chain.Repo
	Stdout io.Writer
	Stderr io.Writer
}

// BuiltinArgs returns the arguments after the program name when argv runs
// this program ("git-uwf …" or "git uwf …"); ok is false for any other
// command.
func BuiltinArgs(argv []string) (args []string, ok bool) {
	switch {
	case len(argv) > 0 && argv[0] == "git-uwf":
		return argv[1:], true
	case len(argv) > 1 && argv[0] == "git" && argv[1] == "uwf":
		return argv[2:], true
	}
	return nil, false
}
