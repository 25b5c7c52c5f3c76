package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/engine"
	"github.com/git-uwf/git-uwf/internal/llmwire"
)

// Check is one line of `agent doctor --format json`.
type Check struct {
	Alias   string `json:"alias"`
	Command string `json:"command"`
	// Binary is the program the alias needs (for built-in agents, the
	// preset's CLI or git-uwf itself).
	Binary  string `json:"binary"`
	Found   bool   `json:"found"`
	Path    string `json:"path"`
	Version string `json:"version"`
	Error   string `json:"error"`
	// Endpoint is the model server a preset CLI will talk to, as its
	// environment (with the alias's env) and config files say, and
	// EndpointFrom where that came from; empty when unknown.
	Endpoint     string `json:"endpoint,omitempty"`
	EndpointFrom string `json:"endpointFrom,omitempty"`
	// Reachable tells whether the endpoint answered HTTP at all (any
	// status counts); nil when not checked. Unreachable says why not, or
	// why it was not checked (git-uwf-llm, which sends the probe, is not
	// installed, or failed).
	Reachable   *bool  `json:"reachable,omitempty"`
	Unreachable string `json:"unreachable,omitempty"`
}

// versionTimeout bounds `<bin> --version`; reachTimeout the endpoint probe.
const (
	versionTimeout = 10 * time.Second
	reachTimeout   = 5 * time.Second
)

// DoctorOptions are the inputs of `agent doctor`.
type DoctorOptions struct {
	IO         *iostreams.IOStreams
	Config     func(context.Context) (*config.Config, string, error)
	Executable func() (string, error)
	Environ    func() []string
	Getenv     func(string) string
	Format     cmdutil.Format

	// Aliases are the aliases to check (none: all of them).
	Aliases []string
	// Offline skips probing the model servers.
	Offline bool
}

func newCmdDoctor(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "doctor",
		Usage:     "Check that the agents' programs are installed and report their versions",
		ArgsUsage: "[<alias>…]",
		Description: "For every alias (or the ones given), finds the program it runs on PATH and\n" +
			"runs `<program> --version` (10 s limit). Versions are asked of the preset CLIs\n" +
			"and git-uwf only, never of your own scripts. For an installed preset CLI it\n" +
			"also finds the model server the CLI will use (its base-URL variables, with\n" +
			"the alias's env, or its config file) and checks that it answers HTTP (5 s\n" +
			"limit; --offline skips this). Exits 1 when the default agent's program is\n" +
			"missing. Run it first when a step fails.",
		Flags: []cli.Flag{cmdutil.FormatFlag(),
			&cli.BoolFlag{Name: "offline", Usage: "do not probe the agents' model servers"}},
		Action: func(c *cli.Context) error {
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			return doctorRun(c.Context, &DoctorOptions{IO: f.IO, Config: f.LoadConfig, Executable: f.Executable,
				Environ: f.Environ, Getenv: f.Getenv, Format: format, Aliases: c.Args().Slice(), Offline: c.Bool("offline")})
		},
	}
}

func doctorRun(ctx context.Context, opts *DoctorOptions) error {
	cfg, wd, err := opts.Config(ctx)
	if err != nil {
		return err
	}
	aliases := cfg.Aliases()
	if len(opts.Aliases) > 0 {
		aliases = opts.Aliases
		for _, a := range aliases {
			if _, ok := cfg.Agents[a]; !ok {
				return cmdutil.FlagErrorf("unknown agent alias %q; known aliases: %s", a, strings.Join(cfg.Aliases(), ", "))
			}
		}
	}
	self, _ := opts.Executable()
	llmProgram := cmdutil.LLMProgram(opts.Executable)
	checks := make([]Check, len(aliases))
	var wg sync.WaitGroup
	for i, alias := range aliases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := cfg.Agents[alias]
			checks[i] = check(ctx, a, self, wd, opts.Environ(), opts.Getenv("PATH"))
			if checks[i].Found {
				env := append(append(opts.Environ(), cfg.AgentEnv()...), a.Env...)
				probeEndpoint(ctx, &checks[i], a.Argv, env, !opts.Offline, llmProgram)
			}
		}()
	}
	wg.Wait()
	if err := cmdutil.Print(opts.IO, opts.Format, checks, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ALIAS\tPROGRAM\tFOUND\tVERSION\tENDPOINT")
		for _, ch := range checks {
			found, version := "no", ch.Version
			if ch.Found {
				found = ch.Path
			}
			if ch.Error != "" {
				version = "(" + ch.Error + ")"
			}
			endpoint := ch.Endpoint
			switch {
			case endpoint == "":
			case ch.Reachable == nil && ch.Unreachable != "":
				endpoint += " (" + ch.Unreachable + ")"
			case ch.Reachable == nil:
				endpoint += " (not checked)"
			case *ch.Reachable:
				endpoint += " (reachable)"
			default:
				endpoint += " (UNREACHABLE: " + ch.Unreachable + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", ch.Alias, ch.Binary, found, version, endpoint)
		}
		return tw.Flush()
	}); err != nil {
		return err
	}
	for _, ch := range checks {
		if ch.Alias == cfg.DefaultAgent && !ch.Found {
			return fmt.Errorf("the default agent %q needs %s, which is not installed", ch.Alias, ch.Binary)
		}
	}
	return nil
}

// check finds the program an agent alias runs and asks for its version.
func check(ctx context.Context, a *config.Agent, self, wd string, env []string, pathEnv string) Check {
	ch := Check{Alias: a.Alias, Command: a.Command}
	bin, known := program(a.Argv)
	if bin == "" {
		bin, known = self, true
		ch.Binary = "git-uwf"
		if self == "" {
			ch.Error = "cannot find the git-uwf executable"
			return ch
		}
	} else {
		ch.Binary = bin
	}
	path, err := lookPath(bin, wd, pathEnv)
	if err != nil {
		ch.Error = err.Error()
		return ch
	}
	ch.Found, ch.Path = true, path
	if !known {
		return ch
	}
	res, err := agentkit.Run(ctx, agentkit.Invocation{Command: path, Args: []string{"--version"}, Env: env, Dir: wd,
		Timeout: versionTimeout, MaxOutput: 64 << 10})
	if err != nil {
		ch.Error = err.Error()
		return ch
	}
	out := bytes.TrimSpace(res.Stdout)
	if len(out) == 0 {
		out = bytes.TrimSpace(res.Stderr)
	}
	ch.Version, _, _ = strings.Cut(string(out), "\n")
	return ch
}

// probeEndpoint fills in the model server of a preset alias and, when
// probe is set, whether it answers HTTP (asking program, git-uwf-llm).
func probeEndpoint(ctx context.Context, ch *Check, argv, env []string, probe bool, program string) {
	p, ok := builtins.LookupPreset(presetOf(argv))
	if !ok || p.Endpoint == nil {
		return
	}
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	ep := p.Endpoint(func(k string) string { return vars[k] })
	ch.Endpoint, ch.EndpointFrom = ep.URL, ep.From
	if ep.URL == "" || !probe {
		return
	}
	checked, ok, why := reachable(ctx, program, ep.URL)
	if !checked {
		ch.Unreachable = "not checked: " + why
		return
	}
	ch.Reachable, ch.Unreachable = &ok, why
}

// reachable sends GET url through program (git-uwf-llm); any HTTP answer
// counts. checked is false when the program could not say, and why tells
// why not (or why the URL is unreachable).
func reachable(ctx context.Context, program, url string) (checked, ok bool, why string) {
	reply, err := llmwire.Run(ctx, program, llmwire.Request{Op: llmwire.OpProbe, URL: url, Timeout: reachTimeout}, "")
	if err != nil {
		return false, false, err.Error()
	}
	return true, reply.Reachable, reply.Unreachable
}

// presetOf returns the --preset of a `git uwf agent pipe` command line.
func presetOf(argv []string) string {
	rest, builtin := engine.BuiltinArgs(argv)
	if !builtin || len(rest) < 2 || rest[0] != "agent" || rest[1] != "pipe" {
		return ""
	}
	for i, a := range rest[2:] {
		switch {
		case a == "--":
			return ""
		case a == "--preset" && i+3 < len(rest):
			return rest[i+3]
		case strings.HasPrefix(a, "--preset="):
			return strings.TrimPrefix(a, "--preset=")
		}
	}
	return ""
}

// program returns the program an agent command line runs, and whether it is
// a known CLI whose --version may be asked. "" means git-uwf itself.
func program(argv []string) (string, bool) {
	rest, builtin := engine.BuiltinArgs(argv)
	if !builtin {
		return argv[0], false
	}
	if len(rest) < 2 || rest[0] != "agent" || rest[1] != "pipe" {
		return "", true
	}
	// git uwf agent pipe [--preset P] [--] [command…]
	args := rest[2:]
	preset := ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1], false
			}
			i = len(args)
		case a == "--preset" && i+1 < len(args):
			preset = args[i+1]
			i++
		case strings.HasPrefix(a, "--preset="):
			preset = strings.TrimPrefix(a, "--preset=")
		}
	}
	if p, ok := builtins.LookupPreset(preset); ok {
		return p.Argv[0], true
	}
	return "", true
}

// lookPath finds an executable like a shell would with PATH=pathEnv;
// names with a slash are taken relative to wd.
func lookPath(name, wd, pathEnv string) (string, error) {
	var cands []string
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(wd, name)
		}
		cands = []string{name}
	} else {
		for _, dir := range filepath.SplitList(pathEnv) {
			if dir != "" && filepath.IsAbs(dir) {
				cands = append(cands, filepath.Join(dir, name))
			}
		}
	}
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	if slices.Contains(cands, name) {
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	return "", errors.New("not found on PATH")
}
