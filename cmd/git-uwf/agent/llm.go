package agent

import (
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/config"
)

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
			ep, err := llmEndpoint(c, f)
			if err != nil {
				return err
			}
			return serve(c.Context, f, &builtins.LLM{Endpoint: ep}, c.Args().Slice())
		},
	}
}

func llmEndpoint(c *cli.Context, f *cmdutil.Factory) (agentkit.LLMEndpoint, error) {
	flags := builtins.LLMFlags{BaseURL: c.String("base-url"), Model: c.String("model"),
		APIKeyEnv: c.String("api-key-env"), Timeout: c.Duration("timeout")}
	if flags.BaseURL != "" && flags.Model == "" {
		return agentkit.LLMEndpoint{}, cmdutil.FlagErrorf("--base-url needs --model")
	}
	wd, err := f.Getwd()
	if err != nil {
		return agentkit.LLMEndpoint{}, err
	}
	cfg, err := config.LoadDir(c.Context, wd, f.Getenv)
	if err != nil {
		return agentkit.LLMEndpoint{}, err
	}
	return cfg.LLMAgentEndpoint(flags)
}
