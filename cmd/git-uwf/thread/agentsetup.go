package thread

import (
	"context"
	"fmt"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/agent"
	"github.com/git-uwf/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/internal/config"
	"github.com/git-uwf/git-uwf/internal/engine"
)

// newEngineConfig builds the step engine for this run from the
// configuration (user, team and repository files) and the --agent
// override, and returns the configuration too (for the workflow limits).
func newEngineConfig(ctx context.Context, f *cmdutil.Factory, repo *chain.Repo, opts StepOptions) (*engine.Engine, *engine.AgentSpec, *config.Config, error) {
	self, err := f.Executable()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("find the git-uwf executable: %w", err)
	}
	cfg, err := config.Load(config.PathsFor(repo.Info, f.Getenv), f.Getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	// Relative agent commands resolve where the user runs the command.
	wd, err := f.Getwd()
	if err != nil {
		return nil, nil, nil, err
	}
	eng := &engine.Engine{Repo: repo, Self: self, Progress: f.IO.StartProgress, NoRedact: cfg.RedactionDisabled,
		InProcess: agent.InProcess(f), Invocation: wd, Kill: engine.NewKillFlags(repo)}
	if f.Supervisor != nil {
		if eng.Supervisor, err = f.Supervisor(); err != nil {
			return nil, nil, nil, fmt.Errorf("find the git-uwf executable: %w", err)
		}
	}
	if !cfg.RedactionDisabled && len(cfg.RedactPatterns) > 0 {
		if eng.Redactor, err = agentkit.NewRedactor(cfg.RedactPatterns); err != nil {
			return nil, nil, nil, fmt.Errorf("redaction.patterns: %w", err)
		}
	}
	eng.Agent = func(workflow, role string) (engine.AgentSpec, error) {
		spec, err := cfg.ResolveAgent(workflow, role)
		if err == nil && opts.Timeout > 0 {
			spec.Timeout = opts.Timeout
		}
		return spec, err
	}
	if opts.Verbose {
		eng.AgentStderr = f.IO.ErrOut
	}
	var override *engine.AgentSpec
	if opts.Agent != "" {
		spec, err := config.ParseAgentFlag(opts.Agent, cfg)
		if err != nil {
			return nil, nil, nil, cmdutil.FlagErrorf("--agent: %v", err)
		}
		if opts.Timeout > 0 {
			spec.Timeout = opts.Timeout
		}
		override = &spec
	}
	return eng, override, cfg, nil
}
