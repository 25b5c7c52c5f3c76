// Package configcmd implements `git uwf config list|get|set|unset`.
//
// set and unset write the repository-local file ($GIT_COMMON_DIR/uwf/
// config.yaml) by default when run inside a repository, else the user file;
// --user, --repo and --team choose explicitly. The team file only accepts
// the keys the trust rule allows (see config).
package configcmd

import (
	"context"
	"fmt"
	"io"

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

// discover returns the configuration files and whether the working
// directory is inside a repository.
func discover(ctx context.Context, f *cmdutil.Factory) (config.Paths, bool, error) {
	wd, err := f.Getwd()
	if err != nil {
		return config.Paths{}, false, err
	}
	paths, repo, err := config.DiscoverPaths(ctx, wd, f.Getenv)
	return paths, repo != nil, err
}

func load(ctx context.Context, f *cmdutil.Factory) (*config.Config, error) {
	wd, err := f.Getwd()
	if err != nil {
		return nil, err
	}
	return config.LoadDir(ctx, wd, f.Getenv)
}

func value(e config.Entry) Value {
	return Value{Key: e.Key, Value: e.Text, Scope: string(e.Scope), File: e.File, Line: e.Line}
}

func newCmdList(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "List the values set (secrets are shown as ***)",
		Flags: []cli.Flag{
			cmdutil.FormatFlag(),
			&cli.BoolFlag{Name: "show-origin", Usage: "show the file and line of each value"},
			&cli.BoolFlag{Name: "builtin", Usage: "include the built-in defaults"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c); err != nil {
				return err
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			cfg, err := load(c.Context, f)
			if err != nil {
				return err
			}
			list := []Value{}
			for _, e := range cfg.List() {
				if e.Scope == config.ScopeBuiltin && !c.Bool("builtin") {
					continue
				}
				list = append(list, value(e))
			}
			return cmdutil.Print(f.IO, format, list, func(w io.Writer) error {
				for _, v := range list {
					if c.Bool("show-origin") {
						origin := v.Scope
						if v.File != "" {
							origin = fmt.Sprintf("%s:%s:%d", v.Scope, v.File, v.Line)
						}
						fmt.Fprintf(w, "%s\t", origin)
					}
					fmt.Fprintf(w, "%s=%s\n", v.Key, v.Value)
				}
				return nil
			})
		},
	}
}

func newCmdGet(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "get",
		Usage:     "Print the value of a key (exit 1 when it is not set)",
		ArgsUsage: "<key>",
		Flags:     []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.FlagErrorf("want one key, got %d arguments", c.NArg())
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			cfg, err := load(c.Context, f)
			if err != nil {
				return err
			}
			e, ok, err := cfg.Get(c.Args().First())
			if err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			if !ok {
				return &cmdutil.ExitError{Code: 1, Err: fmt.Errorf("%s is not set", c.Args().First())}
			}
			return cmdutil.Print(f.IO, format, value(e), func(w io.Writer) error {
				_, err := fmt.Fprintln(w, e.Text)
				return err
			})
		},
	}
}

func scopeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "user", Usage: "write the user file ($XDG_CONFIG_HOME/uwf/config.yaml)"},
		&cli.BoolFlag{Name: "repo", Usage: "write the repository-local file (the default inside a repository)"},
		&cli.BoolFlag{Name: "team", Usage: "write the team file .uwf/config.yaml (commit it to share)"},
	}
}

// scopeOf picks the file to write: the flag given, else repo inside a
// repository, else user.
func scopeOf(c *cli.Context, inRepo bool) (config.Scope, error) {
	var chosen []config.Scope
	for _, s := range []config.Scope{config.ScopeUser, config.ScopeRepo, config.ScopeTeam} {
		if c.Bool(string(s)) {
			chosen = append(chosen, s)
		}
	}
	switch {
	case len(chosen) > 1:
		return "", cmdutil.FlagErrorf("give only one of --user, --repo and --team")
	case len(chosen) == 1:
		return chosen[0], nil
	case inRepo:
		return config.ScopeRepo, nil
	}
	return config.ScopeUser, nil
}

func newCmdSet(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "set",
		Usage:     "Set a key in one configuration file",
		ArgsUsage: "[--user|--repo|--team] <key> <value>",
		Description: "A command line (agents.<alias>.command) is a shell-quoted string or a YAML\n" +
			"list like '[\"./agent.sh\", \"--fast\"]'. Secrets cannot be stored: name the\n" +
			"environment variable that holds a key with providers.<name>.apiKeyEnv.",
		Flags: scopeFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return cmdutil.FlagErrorf("want <key> <value>, got %d arguments", c.NArg())
			}
			paths, inRepo, err := discover(c.Context, f)
			if err != nil {
				return err
			}
			scope, err := scopeOf(c, inRepo)
			if err != nil {
				return err
			}
			return paths.Set(scope, c.Args().Get(0), c.Args().Get(1))
		},
	}
}

func newCmdUnset(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "unset",
		Usage:     "Remove a key from one configuration file",
		ArgsUsage: "[--user|--repo|--team] <key>",
		Flags:     scopeFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.FlagErrorf("want one key, got %d arguments", c.NArg())
			}
			paths, inRepo, err := discover(c.Context, f)
			if err != nil {
				return err
			}
			scope, err := scopeOf(c, inRepo)
			if err != nil {
				return err
			}
			return paths.Unset(scope, c.Args().First())
		},
	}
}
