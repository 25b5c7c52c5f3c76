// Package configcmd implements `git uwf config list|get|set|unset`.
//
// set and unset write the repository-local file ($GIT_COMMON_DIR/uwf/
// config.yaml) by default when run inside a repository, else the user file;
// --user, --repo and --team choose explicitly. The team file only accepts
// the keys the trust rule allows (see config).
//
// Each verb is one small constructor, newCmd<Verb>(f), whose action parses
// the command line into an options struct and calls <verb>Run(ctx, opts).
package configcmd

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/config"
)

// Value is one line of `config list --format json` and the result of
// `config get --format json`.
type Value struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Scope string `json:"scope"`
	File  string `json:"file"`
	Line  int    `json:"line"`
}

// NewCmdConfig returns the `config` command group.
func NewCmdConfig(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "Read and write git-uwf's configuration",
		Description: "Files, lowest precedence first: built-in defaults, the user file\n" +
			"($XDG_CONFIG_HOME/uwf/config.yaml), the team file (.uwf/config.yaml, committed;\n" +
			"it may only set defaultAgent, overrides.<workflow>.<role> and extraction.retries)\n" +
			"and the repository-local file ($GIT_COMMON_DIR/uwf/config.yaml).\n" +
			"Keys are dotted paths: defaultAgent, timeout, agents.<alias>.command|timeout|env.<VAR>,\n" +
			"overrides.<workflow>.<role>, extraction.retries|llm|model,\n" +
			"providers.<name>.baseUrl|apiKeyEnv, models.<name>.provider|name,\n" +
			"redaction.enabled|patterns.",
		Subcommands: []*cli.Command{newCmdList(f), newCmdGet(f), newCmdSet(f), newCmdUnset(f)},
	}
}

func value(e config.Entry) Value {
	return Value{Key: e.Key, Value: e.Text, Scope: string(e.Scope), File: e.File, Line: e.Line}
}

func scopeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "user", Usage: "write the user file ($XDG_CONFIG_HOME/uwf/config.yaml)"},
		&cli.BoolFlag{Name: "repo", Usage: "write the repository-local file (the default inside a repository)"},
		&cli.BoolFlag{Name: "team", Usage: "write the team file .uwf/config.yaml (commit it to share)"},
	}
}

// WriteOptions are the inputs of `config set` and `config unset`.
type WriteOptions struct {
	// Paths finds the configuration files and whether the command runs
	// inside a repository.
	Paths func(context.Context) (config.Paths, bool, error)
	// Scope is the file chosen by --user, --repo or --team; empty picks
	// repo inside a repository, else user.
	Scope config.Scope

	Key   string
	Value string // set only
}

// target finds the configuration files and the one that set or unset
// writes.
func target(ctx context.Context, opts *WriteOptions) (config.Paths, config.Scope, error) {
	paths, inRepo, err := opts.Paths(ctx)
	if err != nil {
		return config.Paths{}, "", err
	}
	switch {
	case opts.Scope != "":
		return paths, opts.Scope, nil
	case inRepo:
		return paths, config.ScopeRepo, nil
	}
	return paths, config.ScopeUser, nil
}

// scopeOf reads the scope flags: the one given, or "" for none.
func scopeOf(c *cli.Context) (config.Scope, error) {
	var chosen []config.Scope
	for _, s := range []config.Scope{config.ScopeUser, config.ScopeRepo, config.ScopeTeam} {
		if c.Bool(string(s)) {
			chosen = append(chosen, s)
		}
	}
	if len(chosen) > 1 {
		return "", cmdutil.FlagErrorf("give only one of --user, --repo and --team")
	}
	if len(chosen) == 1 {
		return chosen[0], nil
	}
	return "", nil
}
