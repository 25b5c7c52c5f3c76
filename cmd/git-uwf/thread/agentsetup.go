package thread

import (
	"context"
	"fmt"

	"github.com/kballard/go-shellquote"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/internal/engine"
)

// newEngine builds the step engine for this run and the --agent override.
func newEngine(ctx context.Context, f *cmdutil.Factory, repo *chain.Repo, opts StepOptions) (*engine.Engine, *engine.AgentSpec, error) {
	self, err := f.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("find the git-uwf executable: %w", err)
	}
	eng := &engine.Engine{Repo: repo, Self: self, Progress: f.IO.StartProgress}
	if opts.Verbose {
		eng.AgentStderr = f.IO.ErrOut
	}
	var override *engine.AgentSpec
	if opts.Agent != "" {
		argv, err := shellquote.Split(opts.Agent)
		if err != nil || len(argv) == 0 {
			return nil, nil, cmdutil.FlagErrorf("--agent %q: not a valid command line", opts.Agent)
		}
		override = &engine.AgentSpec{Name: argv[0], Argv: argv, Timeout: opts.Timeout}
	}
	return eng, override, nil
}
