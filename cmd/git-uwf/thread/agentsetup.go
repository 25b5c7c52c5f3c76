package thread

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/engine"
)

// newEngineConfig builds the step engine for this run from the
// configuration (user, team and repository files) and the --agent
// override, and returns the configuration too (for the workflow limits).
func newEngineConfig(ctx context.Context, f *cmdutil.Factory, repo *chain.Repo, opts StepOptions) (*engine.Engine, *config.AgentSpec, *config.Config, error) {
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
		SpawnBuiltins: f.Getenv(engine.EnvSpawnAgents) == "1", Invocation: wd, Kill: engine.NewKillFlags(repo),
		Limit: workflowLimit(f, repo, cfg)}
	// The llm agent and LLM extraction send their requests through
	// git-uwf-llm, installed beside git-uwf.
	if p := cmdutil.LLMProgram(f.Executable); p != "" {
		eng.Env = append(eng.Env, agentkit.EnvLLMProgram+"="+p)
	}
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
	eng.Agent = func(workflow, role string) (config.AgentSpec, error) {
		spec, err := cfg.ResolveAgent(workflow, role)
		if err == nil && opts.Timeout > 0 {
			spec.Timeout = opts.Timeout
		}
		return spec, err
	}
	// The agent's stderr is shown live with -v, and on a terminal unless
	// -q; the spinner would redraw over it, so lines replace it then.
	if opts.Verbose || (f.IO.IsStderrTTY() && !opts.Quiet) {
		eng.AgentStderr = f.IO.ErrOut
		if f.IO.IsStderrTTY() {
			eng.Progress = lineProgress(f.IO.ErrOut)
		}
	}
	var override *config.AgentSpec
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

// lineProgress reports a step with a line when it starts and one when it
// ends, for when the agent's own output is shown in between.
func lineProgress(w io.Writer) func(label string) func(string) {
	return func(label string) func(string) {
		start := time.Now()
		fmt.Fprintf(w, "%s …\n", label)
		var once sync.Once
		return func(result string) {
			once.Do(func() {
				if result == "" {
					result = "done"
				}
				fmt.Fprintf(w, "%s: %s in %s\n", label, result, time.Since(start).Round(100*time.Millisecond))
			})
		}
	}
}
