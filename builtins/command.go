package builtins

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
)

// Command is the command line of a built-in agent the engine may call as a
// Go function: `agent mock|pipe|llm [flags…] <thread-id> <role>`, without
// the program name. The flags are read by the same rules as `git uwf agent
// <name>`.
type Command struct {
	// Name is "mock", "pipe" or "llm".
	Name string
	// Thread and Role are the protocol's last two arguments.
	Thread, Role string
	Mock         MockFlags
	Pipe         PipeArgs
	LLM          LLMFlags
}

// MockFlags are the flags of `agent mock`.
type MockFlags struct {
	// Script is --script ("" when not given).
	Script string
}

// LLMFlags are the flags of `agent llm`.
type LLMFlags struct {
	BaseURL, Model, APIKeyEnv string
	// Timeout bounds one request.
	Timeout time.Duration
}

// DefaultLLMTimeout is the llm agent's --timeout when none is given.
const DefaultLLMTimeout = 10 * time.Minute

// ParseCommand reads args (after the program name) as a built-in agent's
// command line. ok is false for anything else, and for anything the
// command would treat other than by calling the agent, or would reject:
// the human agent (it talks to the terminal), global flags, a request for
// help, an unknown or malformed flag, stray arguments. Such command lines
// are spawned, so the command itself handles them.
func ParseCommand(args []string) (Command, bool) {
	if len(args) < 4 || args[0] != "agent" {
		return Command{}, false
	}
	c := Command{Name: args[1], Thread: args[len(args)-2], Role: args[len(args)-1]}
	rest := args[2:]
	switch c.Name {
	case "mock":
		flags, ok := parseFlags(rest[:len(rest)-2], "script")
		if !ok {
			return Command{}, false
		}
		c.Mock.Script = flags["script"]
	case "llm":
		flags, ok := parseFlags(rest[:len(rest)-2], "base-url", "model", "api-key-env", "timeout")
		if !ok {
			return Command{}, false
		}
		c.LLM = LLMFlags{BaseURL: flags["base-url"], Model: flags["model"], APIKeyEnv: flags["api-key-env"], Timeout: DefaultLLMTimeout}
		if v, set := flags["timeout"]; set {
			d, err := time.ParseDuration(v)
			if err != nil {
				return Command{}, false
			}
			c.LLM.Timeout = d
		}
		if c.LLM.BaseURL != "" && c.LLM.Model == "" {
			return Command{}, false
		}
	case "pipe":
		p, err := ParsePipeArgs(rest)
		if err != nil || p.Help {
			return Command{}, false
		}
		c.Pipe = p
	default:
		return Command{}, false
	}
	return c, true
}

// parseFlags reads string flags named names, as -name, --name, with the
// value in the next argument or after "=". Every argument must be such a
// flag; ok is false otherwise (a positional argument, a help request, an
// unknown flag, a missing value).
func parseFlags(args []string, names ...string) (map[string]string, bool) {
	flags := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			if name, ok = strings.CutPrefix(a, "-"); !ok {
				return nil, false
			}
		}
		name, value, inline := strings.Cut(name, "=")
		known := false
		for _, n := range names {
			known = known || n == name
		}
		if !known {
			return nil, false
		}
		if !inline {
			if i+1 >= len(args) {
				return nil, false
			}
			i++
			value = args[i]
		}
		flags[name] = value
	}
	return flags, true
}

// FlagError is a built-in agent's command line that does not make sense
// (an unknown preset, a missing command…): a usage error.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

func flagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// Env is what a built-in agent takes from where it runs.
type Env struct {
	// Environ is the agent's environment; the last entry of a key wins.
	Environ []string
	// Dir is the step's working directory.
	Dir string
	// Supervisor is the program that supervises the commands the agent
	// starts (see agentkit.Invocation.Supervisor); "" starts them directly.
	Supervisor string
}

// Getenv returns the value of key in the environment.
func (e Env) Getenv(key string) string {
	for i := len(e.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e.Environ[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// NewMockAgent returns the mock agent for its flags: the script is
// --script, relative to the directory git-uwf was run in, else
// $UWF_MOCK_SCRIPT.
func NewMockAgent(flags MockFlags, env Env) (*Mock, error) {
	path, err := ResolveMockScript(flags.Script, agentkit.InvocationDir(env.Getenv, env.Dir), env.Getenv)
	if err != nil {
		return nil, err
	}
	script, err := LoadMockScript(path)
	if err != nil {
		return nil, err
	}
	return &Mock{Script: script, Path: path}, nil
}

// NewPipeAgent returns the pipe agent for its arguments; the model is
// --model, else $UWF_PIPE_MODEL. A command line that does not make sense
// gives a *FlagError.
func NewPipeAgent(args PipeArgs, env Env) (*Pipe, error) {
	model := args.Model
	if model == "" {
		model = env.Getenv(EnvPipeModel)
	}
	p, err := NewPipe(args.Preset, args.Command, model)
	if err != nil {
		return nil, &FlagError{Err: err}
	}
	p.Timeout, p.Env, p.NoResume = args.Timeout, env.Environ, args.NoResume
	p.Dir = agentkit.InvocationDir(env.Getenv, env.Dir)
	p.Supervisor = env.Supervisor
	return p, nil
}

// PipeArgs is the command line of `agent pipe`.
type PipeArgs struct {
	Preset, Model string
	Timeout       time.Duration
	NoResume      bool
	// Command is the command after the flags (or after --).
	Command []string
	// Protocol is the thread id and the role.
	Protocol []string
	// Help is set by -h or --help; nothing after it is read.
	Help bool
}

// ParsePipeArgs reads `[flags] [--] [command…] <thread-id> <role>`.
func ParsePipeArgs(args []string) (PipeArgs, error) {
	var o PipeArgs
	i := 0
	value := func(name string, inline *string) (string, error) {
		if inline != nil {
			return *inline, nil
		}
		if i+1 >= len(args) {
			return "", flagErrorf("flag needs an argument: %s", name)
		}
		i++
		return args[i], nil
	}
loop:
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		name, v, hasValue := strings.Cut(a, "=")
		var inline *string
		if hasValue {
			inline = &v
		}
		switch name {
		case "-h", "--help":
			o.Help = true
			return o, nil
		case "--no-resume":
			o.NoResume = true
		case "--preset", "--model", "--timeout":
			val, err := value(name, inline)
			if err != nil {
				return o, err
			}
			switch name {
			case "--preset":
				o.Preset = val
			case "--model":
				o.Model = val
			default:
				d, err := time.ParseDuration(val)
				if err != nil || d <= 0 {
					return o, flagErrorf("--timeout %q: want a positive duration like 90s or 30m", val)
				}
				o.Timeout = d
			}
		default:
			break loop
		}
	}
	rest := args[i:]
	if len(rest) > 0 && strings.HasPrefix(rest[0], "-") && rest[0] != "-" && (i == 0 || args[i-1] != "--") {
		return o, flagErrorf("unknown flag: %s (put the command after --)", rest[0])
	}
	if len(rest) < 2 {
		return o, flagErrorf("missing <thread-id> <role> (the engine appends them)")
	}
	o.Command, o.Protocol = rest[:len(rest)-2], rest[len(rest)-2:]
	return o, nil
}
