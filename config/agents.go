package config

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
)

// Builtins returns the built-in agent aliases: mock, human, llm and one
// per pipe preset.
func Builtins() []Agent {
	out := []Agent{
		{Alias: "human", Argv: []string{"git", "uwf", "agent", "human"}},
		{Alias: "llm", Argv: []string{"git", "uwf", "agent", "llm"}},
		{Alias: "mock", Argv: []string{"git", "uwf", "agent", "mock"}},
	}
	for _, name := range builtins.PresetNames() {
		out = append(out, Agent{Alias: name, Argv: []string{"git", "uwf", "agent", "pipe", "--preset", name}})
	}
	for i := range out {
		out[i].Command = shellquote.Join(out[i].Argv...)
		out[i].Scope, out[i].Where = ScopeBuiltin, string(ScopeBuiltin)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Alias < out[j].Alias })
	return out
}

// Aliases returns the known agent aliases, sorted.
func (c *Config) Aliases() []string {
	names := make([]string, 0, len(c.Agents))
	for a := range c.Agents {
		names = append(names, a)
	}
	sort.Strings(names)
	return names
}

// ResolveAgent returns the agent for a workflow's role: the alias from
// overrides.<workflow>.<role>, else defaultAgent. It has the signature of
// the engine's Agent hook.
func (c *Config) ResolveAgent(workflow, role string) (AgentSpec, error) {
	alias, from := c.DefaultAgent, c.entries["defaultAgent"]
	if a, ok := c.Overrides[workflow][role]; ok && a != "" {
		alias, from = a, c.entries["overrides."+workflow+"."+role]
	}
	if alias == "" {
		return AgentSpec{}, fmt.Errorf("no agent configured for role %q: pass --agent \"<command>\" or run git uwf setup", role)
	}
	spec, err := c.AgentSpec(alias)
	if err != nil {
		return AgentSpec{}, fmt.Errorf("%s (chosen for role %q of workflow %q by %s)", err, role, workflow, from.Where())
	}
	return spec, nil
}

// AgentSpec returns the spec of an agent alias.
func (c *Config) AgentSpec(alias string) (AgentSpec, error) {
	a, ok := c.Agents[alias]
	if !ok {
		return AgentSpec{}, fmt.Errorf("unknown agent alias %q; known aliases: %s", alias, strings.Join(c.Aliases(), ", "))
	}
	if a.Scope == ScopeBuiltin && alias == "mock" && c.getenv(builtins.EnvMockScript) == "" {
		return AgentSpec{}, fmt.Errorf("the mock agent needs a script: pass --agent \"git uwf agent mock --script FILE\" or set %s", builtins.EnvMockScript)
	}
	timeout := a.Timeout
	if timeout == 0 {
		timeout = c.Timeout
	}
	env := append(c.AgentEnv(), a.Env...)
	if a.Scope == ScopeBuiltin && alias == "mock" {
		env = append(env, builtins.EnvMockScript+"="+c.getenv(builtins.EnvMockScript))
	}
	return AgentSpec{Name: alias, Argv: slices.Clone(a.Argv), Env: env, Timeout: timeout}, nil
}

// ParseAgentFlag reads the value of --agent: a known alias (a single word
// naming one), or else a command line split with shell quoting rules. cfg
// may be nil (only the built-in aliases are known then).
func ParseAgentFlag(value string, cfg *Config) (AgentSpec, error) {
	if cfg == nil {
		var err error
		if cfg, err = Load(Paths{}, nil); err != nil {
			return AgentSpec{}, err
		}
	}
	v := strings.TrimSpace(value)
	if v == "" {
		return AgentSpec{}, errors.New("empty agent: give an alias or a command line")
	}
	if _, ok := cfg.Agents[v]; ok {
		return cfg.AgentSpec(v)
	}
	argv, err := shellquote.Split(v)
	if err != nil {
		return AgentSpec{}, fmt.Errorf("agent command line %q: %s", value, strings.ToLower(err.Error()))
	}
	if len(argv) == 0 {
		return AgentSpec{}, errors.New("empty agent command line")
	}
	return AgentSpec{Name: v, Argv: argv, Env: cfg.AgentEnv(), Timeout: cfg.Timeout}, nil
}

// AgentEnv is the environment every agent gets from the configuration:
// extraction settings for agentkit (retries, LLM endpoint and key,
// redaction), then the user-level .env values not already in the
// environment.
func (c *Config) AgentEnv() []string {
	var env []string
	if c.Retries != nil {
		env = append(env, agentkit.EnvRetries+"="+strconv.Itoa(*c.Retries))
	}
	if c.LLMExtraction {
		if ep, err := c.Endpoint(c.ExtractionModel); err == nil {
			env = append(env, agentkit.EnvLLMBaseURL+"="+ep.BaseURL, agentkit.EnvLLMModel+"="+ep.Model)
			if ep.APIKey != "" {
				env = append(env, agentkit.EnvLLMKey+"="+ep.APIKey)
			}
		}
	}
	if c.RedactionDisabled {
		env = append(env, agentkit.EnvNoRedact+"=1")
	}
	if len(c.RedactPatterns) > 0 {
		env = append(env, agentkit.EnvRedactMore+"="+strings.Join(c.RedactPatterns, "\n"))
	}
	names := make([]string, 0, len(c.dotenv))
	for k := range c.dotenv {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if c.getenv(k) == "" {
			env = append(env, k+"="+c.dotenv[k])
		}
	}
	return env
}

// AgentSpec is a resolved agent: the command line to spawn (thread id and
// role are appended) and how long it may run.
type AgentSpec struct {
	// Name is shown in progress lines and recorded in failed attempts.
	Name string
	Argv []string
	Env  []string
	// Timeout bounds one run (0: DefaultTimeout).
	Timeout time.Duration
}
