package config

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// Paths are the configuration files to read; an empty path is skipped.
type Paths struct {
	User string
	Repo string
	Team string
}

// File returns the path of the file for a scope ("" when there is none).
func (p Paths) File(scope Scope) string {
	switch scope {
	case ScopeUser:
		return p.User
	case ScopeRepo:
		return p.Repo
	case ScopeTeam:
		return p.Team
	}
	return ""
}

// DotenvPath is the user-level secrets file, next to the user config.
func (p Paths) DotenvPath() string {
	if p.User == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(p.User), ".env")
}

// UserFile returns the user configuration file:
// $XDG_CONFIG_HOME/uwf/config.yaml, else $HOME/.config/uwf/config.yaml, or
// "" when neither variable is set.
func UserFile(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "uwf", "config.yaml")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "uwf", "config.yaml")
	}
	return ""
}

// TeamFile is where a project keeps its shared defaults, relative to the
// top of the work tree.
const TeamFile = ".uwf/config.yaml"

// PathsFor returns the files for a repository (nil: outside any
// repository, only the user file).
func PathsFor(repo *gitrepo.Repo, getenv func(string) string) Paths {
	p := Paths{User: UserFile(getenv)}
	if repo != nil {
		p.Repo = filepath.Join(repo.CommonDir, "uwf", "config.yaml")
		if repo.WorkTree != "" {
			p.Team = filepath.Join(repo.WorkTree, filepath.FromSlash(TeamFile))
		}
	}
	return p
}

// DiscoverPaths finds the repository around dir, if any, and returns its
// files. Outside a repository only the user file is used.
func DiscoverPaths(ctx context.Context, dir string, getenv func(string) string) (Paths, *gitrepo.Repo, error) {
	repo, err := gitrepo.Discover(ctx, dir, nil)
	if errors.Is(err, gitrepo.ErrNotRepository) {
		return PathsFor(nil, getenv), nil, nil
	}
	if err != nil {
		return Paths{}, nil, err
	}
	return PathsFor(repo, getenv), repo, nil
}

// Agent is a configured agent alias.
type Agent struct {
	Alias string
	// Argv is the command line (the thread id and role are appended when it
	// runs).
	Argv []string
	// Command is the command line as written.
	Command string
	Timeout time.Duration
	// Env is added to the agent's environment (NAME=value).
	Env []string
	// Scope and Where tell where the command was defined.
	Scope Scope
	Where string
}

// Provider is an OpenAI-compatible endpoint.
type Provider struct {
	BaseURL   string
	APIKeyEnv string
}

// Model names a model at a provider.
type Model struct {
	Provider string
	Name     string
}

// Config is the merged configuration.
type Config struct {
	DefaultAgent string
	// Timeout is the default agent timeout (0: the engine's default).
	Timeout   time.Duration
	Agents    map[string]*Agent
	Overrides map[string]map[string]string
	// Retries is the number of correction rounds (nil: agentkit's default).
	Retries           *int
	LLMExtraction     bool
	ExtractionModel   string
	Providers         map[string]Provider
	Models            map[string]Model
	RedactionDisabled bool
	RedactPatterns    []string
	// Workflows are the per-workflow step limits, by workflow name.
	Workflows map[string]WorkflowLimit

	paths   Paths
	entries map[string]Entry
	getenv  func(string) string
	dotenv  map[string]string
}

// Paths returns the files the configuration was loaded from.
func (c *Config) Paths() Paths { return c.paths }

// Load reads the built-in defaults and the files in paths, merges them and
// checks the result. getenv reads the environment (for secrets and
// UWF_MOCK_SCRIPT); nil means no environment.
func Load(paths Paths, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	c := &Config{paths: paths, entries: map[string]Entry{}, getenv: getenv}
	layers := [][]Entry{builtinEntries()}
	for _, l := range []struct {
		path  string
		scope Scope
	}{{paths.User, ScopeUser}, {paths.Team, ScopeTeam}, {paths.Repo, ScopeRepo}} {
		es, err := readFile(l.path, l.scope)
		if err != nil {
			return nil, err
		}
		layers = append(layers, es)
	}
	for _, layer := range layers {
		for _, e := range layer {
			if e.Value == nil {
				// A null removes the key and everything below it; built-in
				// aliases stay defined.
				for k, old := range c.entries {
					if old.Scope == ScopeBuiltin {
						continue
					}
					if k == e.Key || strings.HasPrefix(k, e.Key+".") || e.Key == "" {
						delete(c.entries, k)
					}
				}
				continue
			}
			c.entries[e.Key] = e
		}
	}
	var err error
	if c.dotenv, err = readDotenv(paths.DotenvPath()); err != nil {
		return nil, err
	}
	if err := c.build(); err != nil {
		return nil, err
	}
	return c, nil
}

// builtinEntries are the defaults: the built-in agent aliases.
func builtinEntries() []Entry {
	var es []Entry
	for _, b := range Builtins() {
		key := "agents." + b.Alias + ".command"
		es = append(es, Entry{Key: key, Path: strings.Split(key, "."), Value: b.Argv, Text: b.Command, Scope: ScopeBuiltin})
	}
	return es
}

// build fills the typed fields from the merged entries and checks them.
func (c *Config) build() error {
	c.Agents = map[string]*Agent{}
	c.Overrides = map[string]map[string]string{}
	c.Providers = map[string]Provider{}
	c.Models = map[string]Model{}
	c.Workflows = map[string]WorkflowLimit{}
	for _, key := range c.keys() {
		e := c.entries[key]
		p := e.Path
		switch {
		case key == "defaultAgent":
			c.DefaultAgent = e.Value.(string)
		case key == "timeout":
			c.Timeout = e.Value.(time.Duration)
		case p[0] == "agents":
			a := c.Agents[p[1]]
			if a == nil {
				a = &Agent{Alias: p[1]}
				c.Agents[p[1]] = a
			}
			switch p[2] {
			case "command":
				a.Argv, a.Command, a.Scope, a.Where = e.Value.([]string), e.Text, e.Scope, e.Where()
			case "timeout":
				a.Timeout = e.Value.(time.Duration)
			case "env":
				if !validEnvName(p[3]) {
					return fmt.Errorf("%s: %q is not a valid environment variable name", e.Where(), p[3])
				}
				a.Env = append(a.Env, p[3]+"="+e.Value.(string))
			}
		case p[0] == "overrides":
			if c.Overrides[p[1]] == nil {
				c.Overrides[p[1]] = map[string]string{}
			}
			c.Overrides[p[1]][p[2]] = e.Value.(string)
		case key == "extraction.retries":
			n := e.Value.(int)
			c.Retries = &n
		case key == "extraction.llm":
			c.LLMExtraction = e.Value.(bool)
		case key == "extraction.model":
			c.ExtractionModel = e.Value.(string)
		case p[0] == "providers":
			pr := c.Providers[p[1]]
			if p[2] == "baseUrl" {
				pr.BaseURL = e.Value.(string)
			} else {
				pr.APIKeyEnv = e.Value.(string)
			}
			c.Providers[p[1]] = pr
		case p[0] == "models":
			m := c.Models[p[1]]
			if p[2] == "provider" {
				m.Provider = e.Value.(string)
			} else {
				m.Name = e.Value.(string)
			}
			c.Models[p[1]] = m
		case key == "redaction.enabled":
			c.RedactionDisabled = !e.Value.(bool)
		case key == "redaction.patterns":
			c.RedactPatterns = e.Value.([]string)
		case p[0] == "workflows":
			if err := checkWorkflowValue(p, e.Value); err != nil {
				return fmt.Errorf("%s: %w", e.Where(), err)
			}
			c.Workflows[p[1]] = c.Workflows[p[1]].with(p[2], e.Value)
		}
	}
	for alias, a := range c.Agents {
		if len(a.Argv) == 0 {
			e := c.firstUnder("agents." + alias)
			return fmt.Errorf("%s: agent %q has no command (set agents.%s.command)", e.Where(), alias, alias)
		}
	}
	if c.LLMExtraction {
		if _, err := c.Endpoint(c.ExtractionModel); err != nil {
			return fmt.Errorf("extraction.llm is on (%s) but %w", c.entries["extraction.llm"].Where(), err)
		}
	}
	if len(c.RedactPatterns) > 0 {
		if _, err := agentkit.NewRedactor(c.RedactPatterns); err != nil {
			return fmt.Errorf("redaction.patterns (%s): %w", c.entries["redaction.patterns"].Where(), err)
		}
	}
	return nil
}

func (c *Config) keys() []string {
	keys := make([]string, 0, len(c.entries))
	for k := range c.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (c *Config) firstUnder(prefix string) Entry {
	for _, k := range c.keys() {
		if strings.HasPrefix(k, prefix+".") {
			return c.entries[k]
		}
	}
	return Entry{Scope: ScopeBuiltin}
}

func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Endpoint resolves a model alias ("" means "default") to an
// OpenAI-compatible endpoint, with the API key read from the environment
// variable the provider names (or the user-level .env).
func (c *Config) Endpoint(model string) (agentkit.LLMEndpoint, error) {
	if model == "" {
		model = "default"
	}
	m, ok := c.Models[model]
	if !ok {
		return agentkit.LLMEndpoint{}, fmt.Errorf("model %q is not configured (set models.%s.provider and models.%s.name, or run git uwf setup)", model, model, model)
	}
	if m.Provider == "" || m.Name == "" {
		return agentkit.LLMEndpoint{}, fmt.Errorf("model %q needs both models.%s.provider and models.%s.name", model, model, model)
	}
	p, ok := c.Providers[m.Provider]
	if !ok || p.BaseURL == "" {
		return agentkit.LLMEndpoint{}, fmt.Errorf("model %q uses provider %q, which has no providers.%s.baseUrl", model, m.Provider, m.Provider)
	}
	ep := agentkit.LLMEndpoint{BaseURL: p.BaseURL, Model: m.Name}
	if p.APIKeyEnv != "" {
		ep.APIKey = c.Secret(p.APIKeyEnv)
	}
	return ep, nil
}

// Secret reads a secret by variable name: the environment first, then the
// user-level .env file.
func (c *Config) Secret(name string) string {
	if v := c.getenv(name); v != "" {
		return v
	}
	return c.dotenv[name]
}

// Get returns the value of a key. The key must exist in the schema; ok is
// false when it is not set anywhere.
func (c *Config) Get(key string) (e Entry, ok bool, err error) {
	if _, _, err := lookupKey(key); err != nil {
		return Entry{}, false, err
	}
	e, ok = c.entries[key]
	return e, ok, nil
}

// List returns every value, sorted by key, with secrets masked ("***").
// Built-in values are included; their Scope is ScopeBuiltin.
func (c *Config) List() []Entry {
	out := make([]Entry, 0, len(c.entries))
	for _, k := range c.keys() {
		e := c.entries[k]
		if slices.ContainsFunc(e.Path, isSecretName) {
			e.Text = "***"
			e.Value = "***"
		}
		out = append(out, e)
	}
	return out
}

// Set writes key = value into the file of scope (user, repo or team). The
// value is parsed by the key's type: a command line is a shell-quoted
// string or a YAML list ("[a, b]"). The loaded Config is not updated; load
// it again to see the change.
func (c *Config) Set(scope Scope, key, value string) error { return c.paths.Set(scope, key, value) }

// Unset removes key from the file of scope.
func (c *Config) Unset(scope Scope, key string) error { return c.paths.Unset(scope, key) }

// Set writes key = value into the file of scope; see Config.Set. It works
// even when another file is broken, so a bad value can be repaired.
func (p Paths) Set(scope Scope, key, value string) error {
	path, err := p.writable(scope)
	if err != nil {
		return err
	}
	if keyPath, spec, err := lookupKey(key); err == nil && keyPath[0] == "workflows" {
		e, err := parseScalar(value, spec.kind)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if err := checkWorkflowValue(keyPath, e.Value); err != nil {
			return err
		}
	}
	return editFile(path, scope, key, &value)
}

// Unset removes key from the file of scope.
func (p Paths) Unset(scope Scope, key string) error {
	path, err := p.writable(scope)
	if err != nil {
		return err
	}
	return editFile(path, scope, key, nil)
}

func (p Paths) writable(scope Scope) (string, error) {
	path := p.File(scope)
	if path == "" {
		switch scope {
		case ScopeUser:
			return "", errors.New("no user configuration file: set HOME or XDG_CONFIG_HOME")
		case ScopeRepo, ScopeTeam:
			return "", fmt.Errorf("no %s configuration file: not inside a repository (with a work tree)", scope)
		}
		return "", fmt.Errorf("cannot write %s configuration", scope)
	}
	return path, nil
}

// LoadDir loads the configuration for a command run in dir: the user file
// and, inside a repository, its team and repository-local files.
func LoadDir(ctx context.Context, dir string, getenv func(string) string) (*Config, error) {
	paths, _, err := DiscoverPaths(ctx, dir, getenv)
	if err != nil {
		return nil, err
	}
	return Load(paths, getenv)
}
