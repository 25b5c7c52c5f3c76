package agentkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/git-uwf/git-uwf/chain"
)

// Environment variables that tune extraction; the engine sets them from
// its configuration.
const (
	EnvRetries    = "UWF_EXTRACT_RETRIES"
	EnvLLMBaseURL = "UWF_LLM_BASE_URL"
	EnvLLMModel   = "UWF_LLM_MODEL"
	EnvLLMKey     = "UWF_LLM_API_KEY"
	EnvNoRedact   = "UWF_NO_REDACT"
	EnvRedactMore = "UWF_REDACT_PATTERNS"
)

// OptionsFromEnv reads extraction settings from the environment.
func OptionsFromEnv(getenv func(string) string) (Options, error) {
	var opts Options
	if v := getenv(EnvRetries); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return opts, fmt.Errorf("%s=%q: not a number", EnvRetries, v)
		}
		opts.Retries = n
		if n == 0 {
			opts.Retries = -1
		}
	}
	if base := getenv(EnvLLMBaseURL); base != "" {
		opts.LLM = &LLMEndpoint{BaseURL: base, Model: getenv(EnvLLMModel), APIKey: getenv(EnvLLMKey), Timeout: 2 * time.Minute,
			Program: getenv(EnvLLMProgram)}
	}
	opts.NoRedact = getenv(EnvNoRedact) == "1"
	if more := getenv(EnvRedactMore); more != "" && !opts.NoRedact {
		red, err := NewRedactor(strings.Split(more, "\n"))
		if err != nil {
			return opts, fmt.Errorf("%s: %w", EnvRedactMore, err)
		}
		opts.Redactor = red
	}
	return opts, nil
}

// Main runs agent as a standalone protocol-speaking program and exits.
// It first checks whether it was started as an agent supervisor (see
// SuperviseIfAsked), so the program can name itself as the Supervisor of
// the commands it runs.
func Main(agent Agent) {
	SuperviseIfAsked()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := RunMain(ctx, agent, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// RunMain is Main without the process: it returns the exit code.
func RunMain(ctx context.Context, agent Agent, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	out, err := Serve(ctx, agent, args, stderr, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		_ = FailureOutput(err).Print(stdout)
		return 1
	}
	if err := out.Print(stdout); err != nil {
		return 1
	}
	return 0
}

// Serve handles one protocol request: open the repository, build the
// session, execute the step.
func Serve(ctx context.Context, agent Agent, args []string, log io.Writer, getenv func(string) string) (*AdapterOutput, error) {
	req, err := RequestFromEnv(args, getenv)
	if err != nil {
		return nil, err
	}
	repo, err := chain.Open(ctx, req.Cwd, chain.Options{})
	if err != nil {
		return nil, err
	}
	return ServeOn(ctx, repo, agent, req, log, getenv)
}

// ServeOn is Serve on a repository the caller has open, for a request it
// has built: the role check, the options from the environment, the
// session, Execute. `git uwf agent` and the engine's in-process built-in
// agents go through it too.
func ServeOn(ctx context.Context, repo *chain.Repo, agent Agent, req Request, log io.Writer, getenv func(string) string) (*AdapterOutput, error) {
	if req.Role != "" && getenv(EnvRole) != "" && getenv(EnvRole) != req.Role {
		return nil, fmt.Errorf("role argument %q disagrees with %s=%q", req.Role, EnvRole, getenv(EnvRole))
	}
	opts, err := OptionsFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	s, err := NewSession(ctx, repo, req, opts)
	if err != nil {
		return nil, err
	}
	s.Log = log
	return Execute(ctx, s, agent, opts)
}

// FailureOutput is the AdapterOutput of a failed step: the error, and the
// nodes stored on the way (kept in the failed attempt).
func FailureOutput(err error) *AdapterOutput {
	o := &AdapterOutput{Error: err.Error()}
	if se, ok := errors.AsType[*StepError](err); ok {
		for _, a := range se.Nodes {
			o.Nodes = append(o.Nodes, string(a))
		}
	}
	return o
}
