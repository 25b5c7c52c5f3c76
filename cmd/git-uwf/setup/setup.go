// Package setup implements `git uwf setup`: choose the default agent and,
// optionally, an OpenAI-compatible provider and model (for the llm agent
// and LLM extraction), and write them to the user configuration. It asks
// interactively when stdin is a terminal and no flag is given; otherwise
// it takes flags.
//
// The action parses the command line into Options and calls
// setupRun(ctx, opts), as every command verb does.
package setup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/config"
)

// Options are the inputs of `setup`.
type Options struct {
	IO *iostreams.IOStreams
	// Paths finds the configuration files.
	Paths  func(context.Context) (config.Paths, bool, error)
	Getenv func(string) string
	Format cmdutil.Format

	// Choices are the flags; none given asks on a terminal.
	Choices Choices
}

// Choices are what setup writes.
type Choices struct {
	Agent     string
	Provider  string
	BaseURL   string
	APIKeyEnv string
	Model     string
}

// Written is one key setup wrote (`--format json` prints the list).
type Written struct {
	File  string `json:"file"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

// NewCmdSetup returns the `setup` command.
func NewCmdSetup(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "setup",
		Usage: "Choose the default agent and an LLM provider (writes the user configuration)",
		Description: "In a terminal without flags, setup asks. Otherwise give --agent and/or\n" +
			"--provider with --base-url, --api-key-env and --model. The API key itself is\n" +
			"never written: export the variable, or put it in the .env file next to the\n" +
			"user configuration.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "agent", Usage: "default agent `ALIAS` (claude, codex, human, …)"},
			&cli.StringFlag{Name: "provider", Usage: "provider `NAME` for the llm agent and extraction"},
			&cli.StringFlag{Name: "base-url", Usage: "the provider's API root `URL` (OpenAI-compatible)"},
			&cli.StringFlag{Name: "api-key-env", Usage: "environment `VARIABLE` that holds the API key"},
			&cli.StringFlag{Name: "model", Usage: "model `NAME` to use as models.default"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c); err != nil {
				return err
			}
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return setupRun(c.Context, &Options{IO: f.IO, Getenv: f.Getenv, Format: format,
				Paths: f.ConfigPaths,
				Choices: Choices{Agent: c.String("agent"), Provider: c.String("provider"), BaseURL: c.String("base-url"),
					APIKeyEnv: c.String("api-key-env"), Model: c.String("model")}})
		},
	}
}

func setupRun(ctx context.Context, opts *Options) error {
	paths, _, err := opts.Paths(ctx)
	if err != nil {
		return err
	}
	cfg, err := config.Load(paths, opts.Getenv)
	if err != nil {
		return err
	}
	choices := opts.Choices
	if choices == (Choices{}) {
		if !opts.IO.IsStdinTTY() {
			return cmdutil.FlagErrorf("stdin is not a terminal: give --agent ALIAS (and --provider, --base-url, --api-key-env, --model for an LLM provider)")
		}
		if choices, err = ask(ctx, opts, cfg); err != nil {
			return err
		}
	}
	written, err := apply(cfg, choices)
	if err != nil {
		return err
	}
	return cmdutil.Print(opts.IO, opts.Format, written, func(w io.Writer) error {
		if len(written) == 0 {
			_, err := fmt.Fprintln(w, "nothing to write")
			return err
		}
		fmt.Fprintf(w, "wrote %s:\n", written[0].File)
		for _, x := range written {
			fmt.Fprintf(w, "  %s = %s\n", x.Key, x.Value)
		}
		if choices.APIKeyEnv != "" && cfg.Secret(choices.APIKeyEnv) == "" {
			fmt.Fprintf(w, "note: %s is not set; export it or add %s=… to %s\n", choices.APIKeyEnv, choices.APIKeyEnv, paths.DotenvPath())
		}
		return nil
	})
}

// apply checks the choices and writes them to the user file.
func apply(cfg *config.Config, o Choices) ([]Written, error) {
	var keys [][2]string
	if o.Agent != "" {
		if _, ok := cfg.Agents[o.Agent]; !ok {
			return nil, cmdutil.FlagErrorf("--agent: unknown alias %q; known aliases: %s", o.Agent, strings.Join(cfg.Aliases(), ", "))
		}
		keys = append(keys, [2]string{"defaultAgent", o.Agent})
	}
	provider := o.Provider
	if provider == "" && (o.BaseURL != "" || o.APIKeyEnv != "") {
		return nil, cmdutil.FlagErrorf("--base-url and --api-key-env need --provider NAME")
	}
	if provider == "" && o.Model != "" {
		if len(cfg.Providers) != 1 {
			return nil, cmdutil.FlagErrorf("--model needs --provider NAME")
		}
		for name := range cfg.Providers {
			provider = name
		}
	}
	if provider != "" {
		if o.BaseURL == "" && cfg.Providers[provider].BaseURL == "" {
			return nil, cmdutil.FlagErrorf("provider %q has no base URL: give --base-url", provider)
		}
		if o.BaseURL != "" {
			keys = append(keys, [2]string{"providers." + provider + ".baseUrl", o.BaseURL})
		}
		if o.APIKeyEnv != "" {
			keys = append(keys, [2]string{"providers." + provider + ".apiKeyEnv", o.APIKeyEnv})
		}
		if o.Model != "" {
			keys = append(keys, [2]string{"models.default.provider", provider}, [2]string{"models.default.name", o.Model})
		}
	}
	file := cfg.Paths().User
	var written []Written
	for _, kv := range keys {
		if err := cfg.Paths().Set(config.ScopeUser, kv[0], kv[1]); err != nil {
			return written, err
		}
		written = append(written, Written{File: file, Key: kv[0], Value: kv[1]})
	}
	return written, nil
}

// ask runs the interactive dialogue.
func ask(ctx context.Context, opts *Options, cfg *config.Config) (Choices, error) {
	in := bufio.NewReader(opts.IO.In)
	out := opts.IO.Out
	var found []string
	for _, p := range builtins.Presets() {
		if onPath(p.Argv[0], opts.Getenv("PATH")) {
			found = append(found, p.Name)
		}
	}
	if len(found) > 0 {
		fmt.Fprintf(out, "Agent CLIs found on PATH: %s\n", strings.Join(found, ", "))
	} else {
		fmt.Fprintln(out, "No known agent CLI found on PATH (claude, codex, gemini, …).")
	}
	fmt.Fprintf(out, "Known aliases: %s\n", strings.Join(cfg.Aliases(), ", "))
	def := cfg.DefaultAgent
	if def == "" && len(found) > 0 {
		def = found[0]
	}
	var o Choices
	var err error
	for {
		if o.Agent, err = prompt(ctx, in, out, "Default agent", def); err != nil {
			return o, err
		}
		if _, ok := cfg.Agents[o.Agent]; ok || o.Agent == "" {
			break
		}
		fmt.Fprintf(out, "unknown alias %q\n", o.Agent)
	}
	yes, err := prompt(ctx, in, out, "Configure an OpenAI-compatible provider for the llm agent and extraction? (y/N)", "n")
	if err != nil || !strings.HasPrefix(strings.ToLower(yes), "y") {
		return o, err
	}
	steps := []struct {
		label, def string
		into       *string
	}{
		{"Provider name", "openai", &o.Provider},
		{"Base URL", "https://api.openai.com/v1", &o.BaseURL},
		{"Environment variable holding the API key", "OPENAI_API_KEY", &o.APIKeyEnv},
		{"Model", "gpt-4o-mini", &o.Model},
	}
	for _, s := range steps {
		if *s.into, err = prompt(ctx, in, out, s.label, s.def); err != nil {
			return o, err
		}
	}
	return o, nil
}

// prompt asks one question; an empty answer takes def.
func prompt(ctx context.Context, in *bufio.Reader, out io.Writer, label, def string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if def != "" {
		fmt.Fprintf(out, "%s [%s]: ", label, def)
	} else {
		fmt.Fprintf(out, "%s: ", label)
	}
	line, err := in.ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		if errors.Is(err, io.EOF) {
			return "", errors.New("setup: input ended before the questions were answered")
		}
		return "", fmt.Errorf("setup: read answer: %w", err)
	}
	if v := strings.TrimSpace(line); v != "" {
		return v, nil
	}
	return def, nil
}

func onPath(name, pathEnv string) bool {
	return slices.ContainsFunc(filepath.SplitList(pathEnv), func(dir string) bool {
		if dir == "" {
			return false
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
	})
}
