package agent

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/config"
)

// LLMOptions are the inputs of `agent llm`.
type LLMOptions struct {
	ProtocolOptions
	// Config reads the configuration that applies in the working
	// directory.
	Config func(context.Context) (*config.Config, string, error)
	// Flags choose the endpoint over the configuration's models.
	Flags builtins.LLMFlags
}

func newCmdLLM(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "llm",
		Usage:     "Answer with an OpenAI-compatible chat completion",
		ArgsUsage: protocolUsage,
		Description: "The endpoint is models.<model> (default: models.default) and its provider from\n" +
			"the configuration, or --base-url and --model. The API key is read from the\n" +
			"environment variable the provider names (apiKeyEnv) or --api-key-env, or\n" +
			"from the user-level .env file.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base-url", Usage: "API root `URL`, e.g. https://api.openai.com/v1"},
			&cli.StringFlag{Name: "model", Usage: "configured model alias, or the model `NAME` to send"},
			&cli.StringFlag{Name: "api-key-env", Usage: "environment `VARIABLE` holding the API key"},
			&cli.DurationFlag{Name: "timeout", Usage: "bound one request", Value: builtins.DefaultLLMTimeout},
		},
		Action: func(c *cli.Context) error {
			flags := builtins.LLMFlags{BaseURL: c.String("base-url"), Model: c.String("model"),
				APIKeyEnv: c.String("api-key-env"), Timeout: c.Duration("timeout")}
			if flags.BaseURL != "" && flags.Model == "" {
				return cmdutil.FlagErrorf("--base-url needs --model")
			}
			return llmRun(c.Context, &LLMOptions{ProtocolOptions: protocolOptions(f, c.Args().Slice()), Config: f.LoadConfig, Flags: flags})
		},
	}
}

func llmRun(ctx context.Context, opts *LLMOptions) error {
	cfg, _, err := opts.Config(ctx)
	if err != nil {
		return err
	}
	ep, err := cfg.LLMAgentEndpoint(opts.Flags)
	if err != nil {
		return err
	}
	ep.Program = opts.Getenv(agentkit.EnvLLMProgram)
	return serve(ctx, &opts.ProtocolOptions, &builtins.LLM{Endpoint: ep})
}
